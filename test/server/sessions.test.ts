// Bounded HTTP sessions: an idle session expires (closing its transport and server, freeing its slot), a call in
// flight keeps its session, and past the caps (overall, and per verified principal with endpoint auth) a new session
// is refused with 503 and Retry-After. Raw requests, so no client holds a notification stream open.

import { afterEach, describe, expect, it, vi } from "vitest";
import type { HttpHandle, HttpOptions } from "../../src/server/http.js";
import { SessionTable } from "../../src/server/sessions.js";
import { connectClient, INITIALIZE, mcpHeaders, raw, serveFake } from "./http-support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.unstubAllEnvs();
});

function serve(options: Partial<HttpOptions> = {}) {
  return serveFake({ cleanups, options });
}

/** An initialize POST; the session id when one was issued. */
async function initialize(handle: HttpHandle, token?: string) {
  const headers = mcpHeaders(handle.port, token === undefined ? {} : { authorization: `Bearer ${token}` });
  const response = await raw({ port: handle.port, headers, body: INITIALIZE });
  return { ...response, sessionId: response.headers["mcp-session-id"] as string | undefined };
}

function request({
  handle,
  sessionId,
  body,
  token,
}: {
  handle: HttpHandle;
  sessionId: string;
  body: object;
  token?: string;
}) {
  const extra: Record<string, string> = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" };
  if (token !== undefined) extra.authorization = `Bearer ${token}`;
  return raw({ port: handle.port, headers: mcpHeaders(handle.port, extra), body: JSON.stringify(body) });
}

const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });

/** Polls until `done` holds; fails after `ms`. */
async function eventually(done: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("idle sessions", () => {
  it("expire after the idle timeout: the id is unknown afterwards and the session is closed", async () => {
    const { handle } = await serve({ sessions: { idleTimeoutMs: 200 } });
    const { sessionId } = await initialize(handle);
    expect((await request({ handle, sessionId: sessionId!, body: ping(2) })).status).toBe(200);
    expect(handle.openSessions()).toBe(1);
    await eventually(() => handle.openSessions() === 0);
    const after = await request({ handle, sessionId: sessionId!, body: ping(3) });
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body)).toMatchObject({ error: { code: -32001, message: "Session not found" } });
  });

  it("do not expire while a call is in flight, however long it runs", async () => {
    const { handle, provider } = await serve({ sessions: { idleTimeoutMs: 150 } });
    const { sessionId } = await initialize(handle);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: { ms: 600 } } };
    const answered = await request({ handle, sessionId: sessionId!, body: call });
    expect(answered.status).toBe(200);
    expect(answered.body).toContain("slept 600 ms");
    expect(provider.calls[0]?.signal?.aborted).toBe(false);
    // The idle clock starts when the call's response ends: the session is still there right after.
    expect((await request({ handle, sessionId: sessionId!, body: ping(3) })).status).toBe(200);
  });

  it("do not expire while the client holds its notification stream open", async () => {
    const { handle } = await serve({ sessions: { idleTimeoutMs: 100 } });
    const { client } = await connectClient(handle.url);
    cleanups.push(() => client.close());
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await client.listTools()).tools.length).toBe(2);
  });
});

describe("the session cap", () => {
  it("refuses a session past the cap with 503, Retry-After and a JSON-RPC error; others are served on", async () => {
    const { handle, logs } = await serve({ sessions: { maxSessions: 2 } });
    const first = await initialize(handle);
    expect((await initialize(handle)).status).toBe(200);
    for (const _ of [1, 2]) {
      const refused = await initialize(handle);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(refused.body)).toMatchObject({
        jsonrpc: "2.0",
        error: { code: -32000, message: expect.stringMatching(/Too many open sessions \(2\)/) },
        id: null,
      });
    }
    expect(logs.filter((l) => l.includes("refused: 503"))).toHaveLength(1);
    expect((await request({ handle, sessionId: first.sessionId!, body: ping(2) })).status).toBe(200);
  });

  it("frees the slot when a session expires or is ended", async () => {
    const { handle } = await serve({ sessions: { maxSessions: 1, idleTimeoutMs: 200 } });
    const first = await initialize(handle);
    expect((await initialize(handle)).status).toBe(503);
    await eventually(() => handle.openSessions() === 0);
    const second = await initialize(handle);
    expect(second.status).toBe(200);
    const headers = mcpHeaders(handle.port, {
      "mcp-session-id": second.sessionId!,
      "mcp-protocol-version": "2025-06-18",
    });
    expect((await raw({ port: handle.port, method: "DELETE", headers })).status).toBe(200);
    expect((await initialize(handle)).status).toBe(200);
    expect(first.sessionId).not.toBe(second.sessionId);
  });

  it("is per verified principal with endpoint auth, beside the overall cap", async () => {
    const [alice, bob, carol] = ["alice-token-0123456789", "bob-token-0123456789ab", "carol-token-0123456789"];
    vi.stubEnv("MCP_TEST_TOKENS", `${alice},${bob},${carol}`);
    const auth = { type: "static" as const, tokenEnv: "MCP_TEST_TOKENS" };
    const { handle } = await serve({ auth, sessions: { maxSessions: 3, maxSessionsPerPrincipal: 2 } });
    expect((await initialize(handle, alice)).status).toBe(200);
    expect((await initialize(handle, alice)).status).toBe(200);
    const refused = await initialize(handle, alice);
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(JSON.parse(refused.body).error.message).toMatch(/for this caller \(2\)/);
    expect((await initialize(handle, bob)).status).toBe(200);
    // Three open: the overall cap now refuses carol, who holds none.
    expect(JSON.parse((await initialize(handle, carol)).body).error.message).toMatch(/Too many open sessions \(3\)/);
  });
});

describe("SessionTable", () => {
  it("says when to retry: when the first idle session of the refused cap expires", () => {
    const table = new SessionTable({ maxSessions: 1, idleTimeoutMs: 90_000 });
    const admitted = table.admit(undefined);
    if (!("slot" in admitted)) throw new Error("not admitted");
    table.begin(admitted.slot);
    expect(table.admit(undefined)).toEqual({ refused: expect.any(String), retryAfterSeconds: 90 });
    table.end(admitted.slot);
    const refused = table.admit(undefined);
    expect("retryAfterSeconds" in refused && refused.retryAfterSeconds).toBeLessThanOrEqual(90);
    table.release(admitted.slot);
    expect("slot" in table.admit(undefined)).toBe(true);
  });
});
