// Streamable HTTP end to end: the SDK's real Client against serveHttp on 127.0.0.1, stateful and stateless, plus the
// endpoint's own answers (health, 404, guard refusals, body limit) checked with raw requests.

import { afterEach, describe, expect, it } from "vitest";
import type { HttpOptions } from "../../src/server/http.js";
import { connectClient, INITIALIZE, mcpHeaders, raw, serveFake } from "./http-support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serve(options: Partial<HttpOptions> = {}) {
  return serveFake({ cleanups, options });
}

async function client(url: string) {
  const connected = await connectClient(url);
  cleanups.push(() => connected.client.close());
  return connected;
}

describe("serveHttp, stateful", () => {
  it("serves on a free port at /mcp", async () => {
    const { handle } = await serve();
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}/mcp`);
  });

  it("issues a session id and reuses it for every later request of that client", async () => {
    const { handle, provider } = await serve();
    const { client: c, transport } = await client(handle.url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["echo", "slow"]);
    await c.callTool({ name: "echo", arguments: { text: "a" } });
    await c.callTool({ name: "echo", arguments: { text: "b" } });
    expect(provider.calls.map((call) => call.sessionId)).toEqual([transport.sessionId, transport.sessionId]);
  });

  it("gives two clients two sessions", async () => {
    const { handle, provider } = await serve();
    const first = await client(handle.url);
    const second = await client(handle.url);
    expect(first.transport.sessionId).not.toBe(second.transport.sessionId);
    await Promise.all([first.client.callTool({ name: "echo" }), second.client.callTool({ name: "echo" })]);
    expect(new Set(provider.calls.map((call) => call.sessionId))).toEqual(
      new Set([first.transport.sessionId, second.transport.sessionId]),
    );
  });

  it("ends a session on DELETE: its id is unknown afterwards", async () => {
    const { handle } = await serve();
    const { transport } = await client(handle.url);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const headers = mcpHeaders(handle.port, { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" });
    const after = await raw({ port: handle.port, headers, body: list });
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });
  });

  it("refuses a non-initialize request without a session id, and an unknown session id", async () => {
    const { handle } = await serve();
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect((await raw({ port: handle.port, headers: mcpHeaders(handle.port), body: list })).status).toBe(400);
    const unknown = mcpHeaders(handle.port, { "mcp-session-id": "no-such-session" });
    expect((await raw({ port: handle.port, headers: unknown, body: list })).status).toBe(404);
  });

  it("aborts the provider's signal when the client cancels a call", async () => {
    const { handle, provider } = await serve();
    const { client: c } = await client(handle.url);
    const controller = new AbortController();
    const pending = c.callTool({ name: "slow", arguments: { ms: 10_000 } }, undefined, { signal: controller.signal });
    const call = await provider.started();
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect(call.done).resolves.toMatchObject({ isError: true });
    expect(call.signal?.aborted).toBe(true);
    // The SDK sends no answer to a cancelled request; the binding ends its response stream, so nothing holds the
    // shutdown up (which otherwise waits a second for open responses).
    const started = Date.now();
    await handle.close();
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe("serveHttp, stateless", () => {
  it("works with no session id", async () => {
    const { handle, provider } = await serve({ stateless: true });
    const { client: c, transport } = await client(handle.url);
    expect(transport.sessionId).toBeUndefined();
    expect((await c.listTools()).tools).toHaveLength(2);
    expect(await c.callTool({ name: "echo", arguments: { n: 1 } })).toMatchObject({
      structuredContent: { args: { n: 1 } },
    });
    expect(provider.calls[0]!.sessionId).toBeUndefined();
  });

  it("serves several clients at once, each getting its own answers", async () => {
    const { handle, provider } = await serve({ stateless: true });
    const clients = await Promise.all([1, 2, 3, 4].map(() => client(handle.url)));
    const results = await Promise.all(
      clients.flatMap(({ client: c }, i) => [
        c.callTool({ name: "slow", arguments: { ms: 50 } }),
        c.callTool({ name: "echo", arguments: { i } }),
      ]),
    );
    expect(results.filter((_, k) => k % 2 === 1).map((r) => r.structuredContent)).toEqual(
      [0, 1, 2, 3].map((i) => ({ args: { i } })),
    );
    expect(provider.calls).toHaveLength(8);
  });

  it("takes POST only", async () => {
    const { handle } = await serve({ stateless: true });
    const get = await raw({
      port: handle.port,
      method: "GET",
      headers: { host: `127.0.0.1:${handle.port}`, accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
  });
});

describe("serveHttp, endpoint answers", () => {
  it("answers GET /healthz", async () => {
    const { handle } = await serve();
    const res = await fetch(`http://127.0.0.1:${handle.port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("answers 404 off /mcp and 405 for other methods on it", async () => {
    const { handle } = await serve();
    expect((await fetch(`http://127.0.0.1:${handle.port}/nope`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${handle.port}/mcp/extra`)).status).toBe(404);
    expect((await fetch(handle.url, { method: "PUT" })).status).toBe(405);
  });

  it("refuses a foreign Host header (DNS rebinding) with 403 and a JSON-RPC error", async () => {
    const { handle, logs } = await serve();
    const res = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { host: `evil.example:${handle.port}` }),
      body: INITIALIZE,
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000, message: expect.stringContaining("Host") },
      id: null,
    });
    expect(logs.some((line) => line.includes("evil.example"))).toBe(true);
    // The loopback names with the right port pass; the right name on the wrong port does not.
    for (const host of [`localhost:${handle.port}`, `[::1]:${handle.port}`]) {
      expect(
        (await raw({ port: handle.port, headers: mcpHeaders(handle.port, { host }), body: INITIALIZE })).status,
      ).toBe(200);
    }
    expect(
      (await raw({ port: handle.port, headers: mcpHeaders(handle.port, { host: "127.0.0.1:1" }), body: INITIALIZE }))
        .status,
    ).toBe(403);
  });

  it("refuses a foreign Origin with 403 and accepts loopback origins", async () => {
    const { handle } = await serve();
    const evil = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { origin: "https://evil.example" }),
      body: INITIALIZE,
    });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.message).toContain("Origin");
    const local = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { origin: "http://localhost:5173" }),
      body: INITIALIZE,
    });
    expect(local.status).toBe(200);
  });

  it("accepts the hosts and origins it is told to", async () => {
    const { handle } = await serve({ allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] });
    const headers = mcpHeaders(handle.port, { host: "mcp.example.com", origin: "https://app.example.com" });
    expect((await raw({ port: handle.port, headers, body: INITIALIZE })).status).toBe(200);
  });

  it("refuses a body over 4 MB with 413, whether declared or streamed", async () => {
    const { handle } = await serve();
    const big = Buffer.alloc(4 * 1024 * 1024 + 1, " ");
    const declared = await raw({ port: handle.port, headers: mcpHeaders(handle.port), body: big });
    expect(declared.status).toBe(413);
    const chunked = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { "transfer-encoding": "chunked" }),
      body: big,
    });
    expect(chunked.status).toBe(413);
  });

  it("answers malformed JSON with a JSON-RPC parse error", async () => {
    const { handle } = await serve();
    const res = await raw({ port: handle.port, headers: mcpHeaders(handle.port), body: "{not json" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe(-32700);
  });
});
