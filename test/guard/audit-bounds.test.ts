// Finding 9 of issue 24: a caller's flood of argument names (3.3 MB of them) wrote a 3.3 MB audit line, and the
// console's Activity ring kept ~1 MB a line for an hour. Over HTTP, with --audit-log and the console: the line in the
// file and on the Activity page is at most MAX_AUDIT_LINE_BYTES, still names the call and the first arguments and
// says how many it could not show; a megabyte name is cut to 200 bytes. The ring, fed lines of
// the largest size (and unbounded lines a library writes), keeps at most MAX_BYTES.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActivityLog, MAX_BYTES, MAX_LINES } from "../../src/console/activity-log.js";
import type { AuditRecord } from "../../src/runtime/audit/audit-record.js";
import { MAX_AUDIT_LINE_BYTES } from "../../src/runtime/audit/audit-line.js";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { ROOT } from "../support/cli.js";
import { type ConsoleApi, consoleApi } from "../support/console.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const ADMIN_TOKEN = "audit-bounds-admin-token-0123456789";

/** The flood: 30,000 argument names of 110 characters, 3.3 MB of names. */
function flood(count = 30_000): Record<string, unknown> {
  const args: Record<string, unknown> = { petId: 7 };
  for (let i = 0; i < count; i++) args[`n${String(i).padStart(5, "0")}_${"x".repeat(104)}`] = 1;
  return args;
}

let upstream: Upstream;
let running: RunningServer;
let api: ConsoleApi;
let client: Client;
let auditFile: string;

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("GET", "/pets/7", json({ id: 7, name: "Rex" }));
  const dir = mkdtempSync(join(tmpdir(), "audit-bounds-"));
  auditFile = join(dir, "audit.jsonl");
  const config = join(dir, "settings.json");
  writeFileSync(config, JSON.stringify({ console: true, consoleTokenEnv: "CONSOLE_TOKEN", auditLog: auditFile }));
  running = await serve(PETSTORE, {
    transport: "http",
    port: 0,
    baseUrl: upstream.url,
    config,
    env: { CONSOLE_TOKEN: ADMIN_TOKEN, API_KEY_API_KEY: "petstore-key-0123456789" },
    log: () => {},
  });
  api = await consoleApi(new URL(running.url!).origin, ADMIN_TOKEN);
  client = new Client({ name: "agent", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  await upstream?.close();
});

function fileLines(): string[] {
  return readFileSync(auditFile, "utf8").split("\n").filter(Boolean);
}

async function activityLines(): Promise<Array<Record<string, unknown>>> {
  const { json } = await api.get("activity");
  return json.lines as Array<Record<string, unknown>>;
}

describe("an audit line is bounded as a whole", () => {
  it("cuts a flood of 3.3 MB of argument names to one bounded line that says how many it did not show", async () => {
    const args = flood();
    expect(Object.keys(args).join("").length).toBeGreaterThan(3_300_000);
    await client.callTool({ name: "getPet", arguments: args });
    const line = fileLines().at(-1)!;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_AUDIT_LINE_BYTES);
    const record = JSON.parse(line) as AuditRecord;
    expect(record.tool).toBe("getPet");
    // The first arguments are there, by name; the rest are counted.
    expect(record.arguments.petId).toBe(7);
    const shown = Object.keys(record.arguments).length;
    expect(shown).toBeGreaterThan(10);
    expect(record.argumentsNotShown).toBe(30_001 - shown);
    // The console's Activity page shows the same bounded line.
    const [newest] = await activityLines();
    const { seq: _seq, ...onPage } = newest!;
    expect(onPage).toEqual(record);
  });

  it("cuts a megabyte argument name, marked with …, and shows the arguments after it", async () => {
    const longName = `pet${"y".repeat(1_000_000)}`;
    await client.callTool({ name: "getPet", arguments: { [longName]: 1, petId: 7 } });
    const line = fileLines().at(-1)!;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_AUDIT_LINE_BYTES);
    const record = JSON.parse(line) as AuditRecord;
    const [name] = Object.keys(record.arguments);
    expect(name).toMatch(/^petyyy+…$/);
    expect(name!.length).toBeLessThanOrEqual(200);
    expect(record.arguments[name!]).toBe(1);
    expect(record.arguments.petId).toBe(7);
    expect(record.argumentsNotShown).toBeUndefined();
  });
});

describe("the Activity ring is bounded in bytes", () => {
  it("keeps at most MAX_BYTES of lines, the newest, however large each line a writer hands it", () => {
    const log = new ActivityLog();
    const base = { time: "t", tool: "getPet", durationMs: 1, outcome: "ok" as const };
    // A library's writer that does not bound its lines: 600 lines of 33 KB of names, 20 MB, more than MAX_BYTES
    // even once each is cut to the largest line.
    const large: Record<string, unknown> = flood(300);
    for (let i = 0; i < 600; i++) log.write({ ...base, arguments: large });
    expect(log.keptBytes).toBeLessThanOrEqual(MAX_BYTES);
    const kept = [...log.window()];
    expect(kept.length).toBeGreaterThan(400);
    expect(kept.length).toBeLessThan(600);
    expect(kept.length).toBeLessThan(MAX_LINES);
    expect(kept[0]!.seq).toBe(600);
    let total = 0;
    for (const { record } of kept) {
      const size = Buffer.byteLength(JSON.stringify(record));
      expect(size).toBeLessThanOrEqual(MAX_AUDIT_LINE_BYTES);
      expect(record.argumentsNotShown).toBeGreaterThan(100);
      total += size;
    }
    expect(total).toBe(log.keptBytes);
  });
});
