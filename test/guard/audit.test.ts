// The audit log, end to end: one JSON line per call (time, session, tool, method, URL with credentials masked,
// argument names with sensitive-looking values redacted, status, duration, outcome), with the right outcome for
// each of ok, http_error, invalid_arguments, denied, not_approved, rate_limited, timeout, network_error and
// output_mismatch; through the Engine's `audit` option, `serve --audit-log <file>` and serve() over HTTP (sessions).

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { memoryAuditLog } from "../../src/runtime/audit/audit.js";
import type { AuditOutcome, AuditRecord } from "../../src/runtime/audit/audit-record.js";
import { Engine } from "../../src/runtime/engine.js";
import { DEFAULT_POLICIES, parsePolicies } from "../../src/runtime/approvals/policy.js";
import { serve } from "../../src/app/serve.js";
import {
  CANARY,
  canaryEnv,
  connectProvider,
  echo,
  type Elicit,
  forbiddenForms,
  guardSpec,
  leaksIn,
  serveOverStdio,
  tempDir,
  writeFile,
} from "../support/guard.js";
import { delayed, json, reset, Upstream } from "../support/upstream.js";

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
let spec: string;

beforeAll(async () => {
  api = await Upstream.start();
  api.on("GET", "/v1/lookup", json({ ok: true }));
  api.on("GET", /^\/v1\/\w+\/ok$/, echo());
  api.on("GET", /^\/v1\/\w+\/e404$/, echo({ status: 404 }));
  api.on("GET", /^\/v1\/\w+\/mismatch$/, echo({ ok: "not a boolean" }));
  api.on("GET", /^\/v1\/\w+\/slow$/, delayed(3_000, echo()));
  api.on("DELETE", /^\/v1\//, echo());
  api.on("POST", /^\/v1\/anything\//, reset());
  temp = tempDir();
  spec = writeFile(
    temp.dir,
    "audit.openapi.json",
    guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${api.url}/oauth/token` }),
  );
});
afterAll(async () => {
  await api.close();
  temp.remove();
});

/** One call per outcome; `session_token` is a sensitive-looking argument. */
const CALLS: Array<{
  outcome: AuditOutcome;
  tool: string;
  args: Record<string, unknown>;
  status?: number;
  sent: boolean;
}> = [
  {
    outcome: "ok",
    tool: "lookup",
    args: { q: "blue", session_token: "tkn-777-redact-me", limit: 3 },
    status: 200,
    sent: true,
  },
  { outcome: "http_error", tool: "get_header", args: { scenario: "e404" }, status: 404, sent: true },
  { outcome: "invalid_arguments", tool: "lookup", args: { q: "blue", limit: 0 }, sent: false },
  { outcome: "denied", tool: "delete_query", args: { scenario: "ok" }, sent: false },
  { outcome: "not_approved", tool: "delete_header", args: { scenario: "ok" }, sent: false },
  { outcome: "ok", tool: "get_bearer", args: { scenario: "ok" }, status: 200, sent: true },
  { outcome: "rate_limited", tool: "get_bearer", args: { scenario: "ok" }, sent: false },
  { outcome: "timeout", tool: "get_basic", args: { scenario: "slow" }, sent: true },
  {
    outcome: "network_error",
    tool: "postAnything",
    args: { name: "reset", body: { password: "hunter2-redact-me" } },
    sent: true,
  },
  { outcome: "output_mismatch", tool: "get_header", args: { scenario: "mismatch" }, status: 200, sent: true },
];
const TIMEOUT_MS = 300;
const DECLINE: Elicit = () => ({ action: "decline" });

/** Makes each call in turn (a client that declines approvals, or cannot be asked). */
async function drive(client: Client): Promise<void> {
  for (const { tool, args } of CALLS) await client.callTool({ name: tool, arguments: args });
}

/** What every audit trail of CALLS must say, line by line. */
function checkRecords(records: AuditRecord[], { started, session }: { started: number; session?: string }): void {
  expect(records.map((r) => r.outcome)).toEqual(CALLS.map((c) => c.outcome));
  const forms = forbiddenForms();
  for (const [i, record] of records.entries()) {
    const call = CALLS[i]!;
    const where = `${call.tool} → ${call.outcome}`;
    expect(record.tool, where).toBe(call.tool);
    expect(Date.parse(record.time), where).toBeGreaterThanOrEqual(started - 1_000);
    expect(Date.parse(record.time), where).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(record.time, where).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    if (session) expect(record.session, where).toBe(session);
    expect(record.durationMs, where).toBeGreaterThanOrEqual(0);
    expect(Object.keys(record.arguments).sort(), where).toEqual(Object.keys(call.args).sort());
    expect(record.status, where).toBe(call.status);
    // A request that was built (sent or stopped at approval or the rate limit) is named; a refused one is not.
    if (call.sent || call.outcome === "not_approved" || call.outcome === "rate_limited") {
      expect(record.method, where).toBe(
        call.tool.startsWith("delete_") ? "DELETE" : call.tool === "postAnything" ? "POST" : "GET",
      );
      expect(record.url, where).toMatch(new RegExp(`^${api.url.replace(/[.]/g, "\\.")}/v1/`));
    }
    // Credentials are masked wherever they would show, sensitive-looking argument values redacted.
    expect(leaksIn(JSON.stringify(record), forms), where).toEqual([]);
  }
  const [ok, , invalid, , , , , timeout, network] = records;
  expect(ok!.url).toContain("api_key=****");
  expect(ok!.arguments).toEqual({ q: "blue", session_token: "[redacted]", limit: 3 });
  expect(invalid!.arguments).toEqual({ q: "blue", limit: 0 });
  expect(network!.arguments).toEqual({ name: "reset", body: "[object]" });
  expect(timeout!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  expect(JSON.stringify(records)).not.toContain("hunter2-redact-me");
  expect(JSON.stringify(records)).not.toContain(CANARY);
}

describe("the Engine's audit option", () => {
  it("one record per call, each outcome right, behind the SDK client", async () => {
    const catalog = await loadCatalog(spec);
    const audit = memoryAuditLog();
    const policies = parsePolicies(
      ["delete_query=deny"],
      catalog.tools.map((t) => t.name),
      { ...DEFAULT_POLICIES, denyMode: "refuse" },
    );
    const engine = new Engine({
      catalog,
      env: canaryEnv(),
      audit,
      policies,
      timeoutMs: TIMEOUT_MS,
      retryDelaysMs: [5],
      rateLimits: { tools: { get_bearer: { requests: 1, windowSeconds: 60 } } },
    });
    const connected = await connectProvider(engine, { elicit: DECLINE });
    const started = Date.now();
    try {
      await drive(connected.client);
    } finally {
      await connected.close();
    }
    checkRecords(audit.records, { started });
  });

  it("the value of a sensitive-looking argument is not in the line at all, the URL included", async () => {
    const catalog = await loadCatalog(spec);
    const audit = memoryAuditLog();
    const connected = await connectProvider(new Engine({ catalog, env: canaryEnv(), audit }));
    try {
      await connected.client.callTool({ name: "lookup", arguments: { q: "blue", session_token: "tkn-777-redact-me" } });
    } finally {
      await connected.close();
    }
    expect(audit.records).toHaveLength(1);
    expect(audit.records[0]!.arguments.session_token).toBe("[redacted]");
    expect(JSON.stringify(audit.records[0]), "the audit line").not.toContain("tkn-777-redact-me");
  });
});

describe("serve --audit-log <file>", () => {
  it("appends one JSON line per call with the right outcome", async () => {
    const file = `${temp.dir}/serve.audit.jsonl`;
    const config = writeFile(temp.dir, "audit.settings.json", {
      policy: { delete_query: "deny" },
      deniedTools: "refuse",
      rateLimits: { tools: { get_bearer: { requests: 1, windowSeconds: 60 } } },
    });
    const server = await serveOverStdio(
      [spec, "--config", config, "--timeout", String(TIMEOUT_MS), "--audit-log", file],
      { env: canaryEnv(), elicit: DECLINE },
    );
    const started = Date.now();
    try {
      await drive(server.client);
    } finally {
      await server.close();
    }
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(CALLS.length);
    // stdio has one session per process and no session id: the field is left out.
    checkRecords(
      lines.map((line) => JSON.parse(line) as AuditRecord),
      { started },
    );
    expect(server.stderr()).not.toContain('"outcome"');
  });
});

describe("serve() over streamable HTTP with auditLog", () => {
  it("records the MCP session of each call", async () => {
    const file = `${temp.dir}/http.audit.jsonl`;
    const running = await serve(spec, { transport: "http", port: 0, env: canaryEnv(), auditLog: file, log: () => {} });
    const clients = [new Client({ name: "a", version: "0" }), new Client({ name: "b", version: "0" })];
    const sessions: string[] = [];
    try {
      for (const client of clients) {
        const transport = new StreamableHTTPClientTransport(new URL(running.url!));
        await client.connect(transport);
        sessions.push(transport.sessionId!);
        await client.callTool({ name: "get_header", arguments: { scenario: "ok" } });
        await client.callTool({ name: "lookup", arguments: { limit: 0 } });
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await running.close();
    }
    const records = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as AuditRecord);
    expect(records.map((r) => [r.session, r.tool, r.outcome])).toEqual([
      [sessions[0], "get_header", "ok"],
      [sessions[0], "lookup", "invalid_arguments"],
      [sessions[1], "get_header", "ok"],
      [sessions[1], "lookup", "invalid_arguments"],
    ]);
    expect(sessions[0]).not.toBe(sessions[1]);
  });
});
