// W3C trace context from the client to the upstream: a real MCP client (SDK v1, protocol 2025-11-25) calls tools
// with `_meta.traceparent`/`tracestate` on `serve` over streamable HTTP, and a real loopback upstream records what
// arrives. A valid traceparent reaches the upstream with its trace-id and flags and a parent-id of ours, which the
// audit line names; none is sent without one or for an invalid one; a traceparent the document declares is kept.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AuditRecord } from "../../src/runtime/audit/audit-record.js";
import { serve } from "../../src/app/serve.js";
import { type CallResult, SECRETS, WIRE_FIXTURE } from "../support/e2e.js";
import { json, status, Upstream } from "../support/upstream.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const ITEM = { id: 3, name: "three", tags: ["t"] };

let upstream: Upstream;
let dir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  upstream = await Upstream.start();
  dir = mkdtempSync(join(tmpdir(), "trace-context-"));
});
afterAll(() => upstream.close());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  upstream.reset();
});

/** `serve` over HTTP with an audit log, and a client connected to it. */
async function connect(source = WIRE_FIXTURE): Promise<{ client: Client; audit: () => AuditRecord[] }> {
  const auditLog = join(dir, `audit-${cleanups.length}-${Date.now()}.jsonl`);
  writeFileSync(auditLog, "");
  const running = await serve(source, {
    transport: "http",
    port: 0,
    baseUrl: `${upstream.url}/v1`,
    env: { ...SECRETS },
    auditLog,
    log: () => {},
  });
  cleanups.push(() => running.close());
  const client = new Client({ name: "trace-client", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
  cleanups.push(() => client.close());
  const audit = () =>
    readFileSync(auditLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditRecord);
  return { client, audit };
}

async function getItem(client: Client, meta?: Record<string, unknown>): Promise<CallResult> {
  upstream.on("GET", "/v1/items/3", json(ITEM));
  return (await client.callTool({
    name: "getItem",
    arguments: { id: 3 },
    ...(meta ? { _meta: meta } : {}),
  })) as CallResult;
}

describe("a traceparent in the call's _meta", () => {
  it("reaches the upstream with the same trace-id and flags, a new parent-id, and the tracestate; the audit line names them", async () => {
    const { client, audit } = await connect();
    const result = await getItem(client, {
      traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
      tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7",
    });
    expect(result.structuredContent).toEqual(ITEM);
    const sent = upstream.only().headers;
    const [version, traceId, parentId, flags] = String(sent.traceparent).split("-");
    expect({ version, traceId, flags }).toEqual({ version: "00", traceId: TRACE_ID, flags: "01" });
    expect(parentId).toMatch(/^[0-9a-f]{16}$/);
    expect(parentId).not.toBe(PARENT_ID);
    expect(parentId).not.toBe("0".repeat(16));
    expect(sent.tracestate).toBe("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    const [line] = audit();
    expect(line).toMatchObject({ tool: "getItem", traceId: TRACE_ID, spanId: parentId, outcome: "ok" });

    // Each call is a request of its own: a parent-id of its own, in the same trace.
    upstream.reset();
    await getItem(client, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` });
    const again = String(upstream.only().headers.traceparent).split("-");
    expect(again[1]).toBe(TRACE_ID);
    expect(again[2]).not.toBe(parentId);
    expect(again[3]).toBe("00");
    expect(upstream.only().headers).not.toHaveProperty("tracestate");
  });

  it("without _meta, or with an invalid traceparent, the upstream gets no trace headers and the call succeeds", async () => {
    const { client, audit } = await connect();
    const calls: Array<Record<string, unknown> | undefined> = [
      undefined,
      { progressToken: 1 },
      { tracestate: "congo=t61rcWkgMzE" },
      { traceparent: `ff-${TRACE_ID}-${PARENT_ID}-01`, tracestate: "congo=1" },
      { traceparent: `00-${"0".repeat(32)}-${PARENT_ID}-01` },
      { traceparent: `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01` },
      { traceparent: 17 },
    ];
    for (const meta of calls) {
      upstream.reset();
      expect((await getItem(client, meta)).structuredContent, JSON.stringify(meta)).toEqual(ITEM);
      expect(upstream.only().headers, JSON.stringify(meta)).not.toHaveProperty("traceparent");
      expect(upstream.only().headers, JSON.stringify(meta)).not.toHaveProperty("tracestate");
    }
    const lines = audit();
    expect(lines).toHaveLength(calls.length);
    for (const line of lines) {
      expect(line).not.toHaveProperty("traceId");
      expect(line).not.toHaveProperty("spanId");
    }
  });

  it("names the trace on the audit line of a call that sends nothing", async () => {
    const { client, audit } = await connect();
    const result = (await client.callTool({
      name: "getItem",
      arguments: { id: "three" },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    })) as CallResult;
    expect(result.isError).toBe(true);
    expect(upstream.requests).toHaveLength(0);
    const [line] = audit();
    expect(line).toMatchObject({ traceId: TRACE_ID, outcome: "invalid_arguments" });
    expect(line).not.toHaveProperty("spanId");
  });

  it("a traceparent header the document declares, when given, is sent as given, without ours", async () => {
    const source = join(dir, "declared.openapi.json");
    writeFileSync(
      source,
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "declared", version: "1" },
        paths: {
          "/traced": {
            get: {
              operationId: "traced",
              parameters: [{ name: "traceparent", in: "header", schema: { type: "string" } }],
              responses: { "204": { description: "done" } },
            },
          },
        },
      }),
    );
    const { client } = await connect(source);
    const incoming = { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: "congo=1" };
    const own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
    upstream.on("GET", "/v1/traced", status(204));
    await client.callTool({ name: "traced", arguments: { traceparent: own }, _meta: incoming });
    expect(upstream.only().headers.traceparent).toBe(own);
    expect(upstream.only().headers).not.toHaveProperty("tracestate");
    // Not given: the client's trace is carried on as for any other call.
    upstream.reset();
    await client.callTool({ name: "traced", arguments: {}, _meta: incoming });
    expect(String(upstream.only().headers.traceparent)).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(upstream.only().headers.tracestate).toBe("congo=1");
  });
});
