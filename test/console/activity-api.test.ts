// The Activity API over HTTP, in process: a console turned on by the settings file, on a server with no --audit-log,
// still sees every call (the ring is fed whatever the audit log's target); a waiting poll is answered when the next
// call's line is written; a malformed cursor is a clear 400.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { ROOT } from "../support/cli.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const ADMIN_TOKEN = "activity-admin-token-0123456789";
const PET = { id: 7, name: "Rex", kind: { species: "dog", goodBoy: true } };

let upstream: Upstream;
let running: RunningServer;
let origin: string;
let cookie: string;
let client: Client;

async function activity(query = ""): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${origin}/console/api/activity${query}`, { headers: { cookie } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("GET", "/pets/7", json(PET));
  const config = join(mkdtempSync(join(tmpdir(), "activity-api-")), "settings.json");
  writeFileSync(config, JSON.stringify({ console: true, consoleTokenEnv: "CONSOLE_TOKEN" }));
  running = await serve(PETSTORE, {
    transport: "http",
    port: 0,
    baseUrl: upstream.url,
    config,
    env: { CONSOLE_TOKEN: ADMIN_TOKEN, API_KEY_API_KEY: "petstore-key-0123456789" },
    log: () => {},
  });
  origin = new URL(running.url!).origin;
  const login = await fetch(`${origin}/console/api/login`, {
    method: "POST",
    headers: { origin, "sec-fetch-site": "same-origin", "content-type": "application/json" },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  expect(login.status).toBe(200);
  cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  client = new Client({ name: "agent", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  await upstream?.close();
});

describe("the activity API", () => {
  it("has every call's line without --audit-log, the console turned on by the settings file", async () => {
    await client.callTool({ name: "getPet", arguments: { petId: 7 } });
    const { status, json: answer } = await activity();
    expect(status).toBe(200);
    expect(answer.lines).toEqual([
      expect.objectContaining({ seq: 1, tool: "getPet", method: "GET", status: 200, outcome: "ok" }),
    ]);
    expect(answer.tools).toEqual([expect.objectContaining({ tool: "getPet", calls: 1, errors: 0, errorRate: 0 })]);
    expect(answer.last).toBe(1);
  });

  it("answers a waiting poll when the next call's line is written, with only the new line", async () => {
    const waiting = activity("?after=1&wait=1");
    const early = await Promise.race([
      waiting.then(() => "answered"),
      new Promise((r) => setTimeout(r, 300, "waiting")),
    ]);
    expect(early).toBe("waiting");
    await client.callTool({ name: "getPet", arguments: { petId: 7 } });
    const { json: answer } = await waiting;
    expect(answer.lines).toEqual([expect.objectContaining({ seq: 2, tool: "getPet" })]);
    expect(answer.last).toBe(2);
  });

  it("refuses a cursor that is not a whole number, saying which parameter", async () => {
    const { status, json: answer } = await activity("?after=abc");
    expect(status).toBe(400);
    expect(answer.error).toMatch(/^after: /);
  });
});
