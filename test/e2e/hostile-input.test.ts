// Input meant to hold the server: a pattern that backtracks catastrophically in JavaScript's RegExp (`^(a+)+$` on
// 34 a's and a "!": over a minute of CPU) sent as an argument and returned by the upstream, and 4 MiB of nested
// arrays as an argument. The server is the built CLI over streamable HTTP in a child process, as users run it, so
// a blocked server cannot block the test; a second client's pings must be answered at once all the while.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/fixtures.js";
import { spawnCli, textOf, waitFor } from "../support/guard.js";
import { json, status, Upstream } from "../support/upstream.js";

const SPEC = fixture("e2e/patterns.openapi.yaml");
const HOSTILE = `${"a".repeat(34)}!`;
/** "Well under a second": a ping waits for nothing but the event loop. */
const PING_MS = 1_000;

let upstream: Upstream;
let server: ReturnType<typeof spawnCli>;
let caller: Client;
let pinger: Client;

beforeAll(async () => {
  upstream = await Upstream.start();
  server = spawnCli(["serve", SPEC, "--base-url", upstream.url, "--transport", "http", "--port", "0"], {});
  await waitFor(() => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(server.stderr()));
  const url = new URL(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.stderr())![1]!);
  caller = new Client({ name: "caller", version: "0" });
  pinger = new Client({ name: "pinger", version: "0" });
  await caller.connect(new StreamableHTTPClientTransport(url));
  await pinger.connect(new StreamableHTTPClientTransport(url));
  await caller.listTools();
});

afterAll(async () => {
  // Before the fix the server is still busy backtracking: it is killed, not asked.
  server.child.kill("SIGKILL");
  await upstream.close();
});

/** Runs `call` while the other client pings every 100 ms; returns its result and the slowest ping. */
async function whilePinging<T>(call: () => Promise<T>): Promise<{ result: T; slowestPingMs: number }> {
  const pending = call();
  let slowest = 0;
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await pinger.ping({ timeout: 3 * PING_MS });
    slowest = Math.max(slowest, performance.now() - started);
  }
  return { result: await pending, slowestPingMs: slowest };
}

describe("a pattern that backtracks catastrophically", () => {
  it("in an argument: refused at once, and the other client's pings are answered meanwhile", async () => {
    const { result, slowestPingMs } = await whilePinging(() =>
      caller.callTool({ name: "search", arguments: { q: HOSTILE } }, undefined, { timeout: 5_000 }),
    );
    expect(slowestPingMs).toBeLessThan(PING_MS);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('q must match pattern "^(a+)+$"');
    expect(upstream.requests).toHaveLength(0);
  });

  it("in the output schema, against an upstream that answers with it: an error result, pings answered meanwhile", async () => {
    upstream.on("GET", "/names/1", json({ name: HOSTILE }));
    const { result, slowestPingMs } = await whilePinging(() =>
      caller.callTool({ name: "getName", arguments: { id: 1 } }, undefined, { timeout: 5_000 }),
    );
    expect(slowestPingMs).toBeLessThan(PING_MS);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("does not match the tool's output schema (name must match pattern");
  });

  it("still checks what it should: a matching value passes", async () => {
    upstream.on("GET", "/search", status(204));
    const result = await caller.callTool({ name: "search", arguments: { q: "aaaa" } });
    expect(result.isError).toBeFalsy();
  });
});

describe("a pattern RE2 cannot run (a lookahead)", () => {
  it("is not checked by the server: the value goes to the upstream, which may refuse it", async () => {
    upstream.on("GET", "/tags", status(204));
    const result = await caller.callTool({ name: "tagged", arguments: { tag: "aws:reserved" } });
    expect(result.isError).toBeFalsy();
    expect(upstream.to("/tags").at(-1)?.url).toBe("/tags?tag=aws%3Areserved");
  });
});

describe("4 MiB of nested arrays as an argument", () => {
  it("is refused with a message, and the server keeps answering", async () => {
    const levels = 2_000_000 - 100;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"q":${"[".repeat(levels)}${"]".repeat(levels)}}}}`;
    // Sent raw: the SDK client itself cannot serialize a value this deep.
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.stderr())![1]!;
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      }),
    });
    const session = {
      "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-06-18",
    };
    await init.text();
    const response = await fetch(url, { method: "POST", headers: { ...headers, ...session }, body });
    const text = await response.text();
    expect(text).toContain("nested more than 64 levels deep");
    expect(text).toContain('"isError":true');
    await pinger.ping({ timeout: PING_MS });
  });
});
