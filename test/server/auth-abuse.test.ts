// Endpoint auth against what an attack run did to it: forged tokens carrying only the right `iss` while the issuer's
// JWKS endpoint fails (finding 6: 500 requests made 500 JWKS fetches), tokens with unknown key ids, and tokens that
// name nobody (finding 7: two tokens without `sub` shared one identity, so one could use the other's session).

import { generateKeyPair } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HttpHandle } from "../../src/server/http.js";
import { challenge, connect, forge, type JwksBehaviour, oauth, post, serve, startAuthServer } from "./auth-support.js";
import { mcpHeaders, type RawResponse, raw } from "./http-support.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** `count` initialize requests with this token, 25 at a time. */
async function flood({ handle, token, count }: { handle: HttpHandle; token: string; count: number }) {
  const responses: RawResponse[] = [];
  for (let sent = 0; sent < count; sent += 25) {
    const batch = Array.from({ length: Math.min(25, count - sent) }, () => post(handle, `Bearer ${token}`));
    responses.push(...(await Promise.all(batch)));
  }
  return responses;
}

/** Moves the clock `ms` ahead for everything that reads Date.now (the backoff and jose's key-set cache). */
function later(ms: number): void {
  const now = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => now() + ms);
}

describe("while the issuer's JWKS endpoint fails", () => {
  it("500 forged tokens carrying only the issuer cause at most a handful of JWKS fetches, each answered 503", async () => {
    const as = await startAuthServer();
    as.jwks = "http-error";
    const { handle, logs } = await serve(oauth(as));
    const responses = await flood({ handle, token: forge({ iss: as.issuer }), count: 500 });
    expect(new Set(responses.map((res) => res.status))).toEqual(new Set([503]));
    for (const res of responses) expect(Number(res.headers["retry-after"])).toSatisfy((s) => s >= 1 && s <= 10);
    expect(as.hits["/jwks"]).toBeLessThanOrEqual(3);
    expect(logs.join("\n")).toMatch(/JWKS at http:\/\/127\.0\.0\.1:\d+\/jwks: HTTP 500/);
  });

  it.each<JwksBehaviour>(["http-error", "not-json", "not-a-key-set", "reset"])(
    "a configured JWKS answering %s is not asked again per request",
    async (behaviour) => {
      const as = await startAuthServer({ discovery: "none" });
      as.jwks = behaviour;
      const { handle } = await serve(oauth(as, { jwksUrl: `http://127.0.0.1:${as.port}/jwks` }));
      const responses = await flood({ handle, token: await as.sign(), count: 50 });
      expect(new Set(responses.map((res) => res.status))).toEqual(new Set([503]));
      expect(as.hits["/jwks"]).toBeLessThanOrEqual(2);
    },
  );

  it("tries again once the backoff (10 s) is over, then lets good tokens in", async () => {
    const as = await startAuthServer();
    as.jwks = "http-error";
    const { handle } = await serve(oauth(as));
    const first = await post(handle, `Bearer ${await as.sign()}`);
    expect(first.status).toBe(503);
    expect(first.headers["retry-after"]).toBe("10");
    as.jwks = "keys";
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(503);
    expect(as.hits["/jwks"]).toBe(1);
    later(10_001);
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(200);
    expect(as.hits["/jwks"]).toBe(2);
  });
});

describe("tokens with unknown key ids", () => {
  it("cannot force a refetch per request, and a failed refetch does not lock good tokens out", async () => {
    const as = await startAuthServer();
    const { handle } = await serve(oauth(as));
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(200);
    const { privateKey } = await generateKeyPair("ES256");
    const stranger = await as.sign({}, { kid: "key-2", key: privateKey });
    // Within jose's 30 s cooldown the cached set answers: unknown key, 401.
    const refused = await flood({ handle, token: stranger, count: 500 });
    expect(new Set(refused.map((res) => res.status))).toEqual(new Set([401]));
    expect(as.hits["/jwks"]).toBe(1);
    // After it, one refetch is allowed; it fails, and that failure holds for the next ones.
    later(31_000);
    as.jwks = "http-error";
    const unverifiable = await flood({ handle, token: stranger, count: 100 });
    expect(new Set(unverifiable.map((res) => res.status))).toEqual(new Set([503]));
    expect(as.hits["/jwks"]).toBe(2);
    // The cached keys still verify the issuer's own tokens.
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(200);
  });
});

describe("who a token names", () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["no sub", { sub: undefined }, /The token has no sub claim/],
    ["an empty sub", { sub: "" }, /sub claim does not name its holder/],
    ["a sub that is not a string", { sub: 42 }, /sub claim does not name its holder/],
  ])("refuses a token with %s (RFC 9068 requires it) with 401 invalid_token", async (_, claims, description) => {
    const as = await startAuthServer();
    const { handle } = await serve(oauth(as));
    const res = await post(handle, `Bearer ${await as.sign(claims)}`);
    expect(res.status).toBe(401);
    const params = challenge(res.headers["www-authenticate"]);
    expect(params.error).toBe("invalid_token");
    expect(params.error_description).toMatch(description);
  });

  it("never lets two tokens without sub share one identity: neither opens or uses a session", async () => {
    const as = await startAuthServer();
    const { handle } = await serve(oauth(as));
    const alice = await as.sign({ sub: undefined, client_id: undefined, name: "alice" });
    const bob = await as.sign({ sub: undefined, client_id: undefined, name: "bob" });
    const opened = await post(handle, `Bearer ${alice}`);
    expect(opened.status).toBe(401);
    const session = {
      "mcp-session-id": String(opened.headers["mcp-session-id"]),
      "mcp-protocol-version": "2025-06-18",
    };
    const used = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { ...session, authorization: `Bearer ${bob}` }),
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(used.status).toBe(401);
  });

  it("with principalClaim client_id, names callers by it: each client its own sessions, none without it", async () => {
    const as = await startAuthServer();
    const { handle } = await serve(oauth(as, { principalClaim: "client_id" }));
    const { client, transport } = await connect(handle.url, await as.sign({ sub: undefined, client_id: "app-a" }));
    expect((await client.listTools()).tools).toHaveLength(2);
    const list = async (claims: Record<string, unknown>) =>
      raw({
        port: handle.port,
        headers: mcpHeaders(handle.port, {
          "mcp-session-id": transport.sessionId!,
          "mcp-protocol-version": "2025-06-18",
          authorization: `Bearer ${await as.sign({ sub: undefined, ...claims })}`,
        }),
        body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
      });
    expect((await list({ client_id: "app-a" })).status).toBe(200);
    expect((await list({ client_id: "app-b" })).status).toBe(404);
    const nameless = await list({ client_id: undefined });
    expect(nameless.status).toBe(401);
    expect(challenge(nameless.headers["www-authenticate"]).error_description).toMatch(/client_id/);
  });
});
