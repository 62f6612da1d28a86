// Endpoint auth for the HTTP transport: static bearer tokens and the OAuth protected-resource mode, against a real
// authorization server on 127.0.0.1 (metadata and JWKS served by the test) and the SDK's real Client.

import { request as httpRequest } from "node:http";
import { type CryptoKey, generateKeyPair, type JWTPayload, UnsecuredJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { bearerChallenge } from "../../src/server/auth-refusals.js";
import { createEndpointAuth } from "../../src/server/auth.js";
import { grantedScopes } from "../../src/server/access-token.js";
import { metadataCandidates } from "../../src/server/issuer-discovery.js";
import type { OAuthResourceAuthConfig } from "../../src/server/auth-config.js";
import { parseAuthorization, stripAuthorization } from "../../src/server/bearer.js";
import { protectedResourceMetadataUrl } from "../../src/server/resource-config.js";
import {
  type AuthServer,
  challenge,
  connect,
  listen,
  METADATA_URL,
  oauth,
  post,
  RESOURCE,
  SCOPE,
  serve,
  startAuthServer,
} from "./auth-support.js";
import { mcpHeaders, raw } from "./http-support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

// ---------------------------------------------------------------------------------------------------------------

describe("pure parts", () => {
  it.each([
    [undefined, {}],
    ["", {}],
    ["Basic dXNlcjpwYXNz", {}],
    ["Bearer abc.def-ghi_~+/=", { token: "abc.def-ghi_~+/=" }],
    ["bearer   tok", { token: "tok" }],
    ["BEARER tok ", { token: "tok" }],
    ["Bearer", { malformed: true }],
    ["Bearer ", { malformed: true }],
    ["Bearer two parts", { malformed: true }],
    ["Bearer tök", { malformed: true }],
    ["Bearertok", {}],
  ])("parseAuthorization(%j) → %j", (header, want) => {
    expect(parseAuthorization(header)).toEqual(want);
  });

  it.each([
    [{}, "Bearer"],
    [{ error: "invalid_token" }, 'Bearer error="invalid_token"'],
    [
      { scope: "a b", resource_metadata: "https://x/.well-known/oauth-protected-resource/mcp", error: undefined },
      'Bearer scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"',
    ],
    [{ error_description: 'say "hi"\\' }, 'Bearer error_description="say hi"'],
  ])("bearerChallenge(%j) → %s", (params, want) => {
    expect(bearerChallenge(params)).toBe(want);
  });

  it.each([
    ["https://mcp.example.com/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"],
    ["https://mcp.example.com/a/mcp/", "https://mcp.example.com/.well-known/oauth-protected-resource/a/mcp"],
    ["https://mcp.example.com", "https://mcp.example.com/.well-known/oauth-protected-resource"],
    ["http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"],
  ])("protectedResourceMetadataUrl(%s) → %s", (resource, want) => {
    expect(protectedResourceMetadataUrl(resource)).toBe(want);
  });

  it.each([
    [
      "https://as.example.com",
      [
        "https://as.example.com/.well-known/oauth-authorization-server",
        "https://as.example.com/.well-known/openid-configuration",
      ],
    ],
    [
      "https://as.example.com/tenant1/",
      [
        "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://as.example.com/.well-known/openid-configuration/tenant1",
        "https://as.example.com/tenant1/.well-known/openid-configuration",
      ],
    ],
  ])("metadataCandidates(%s)", (issuer, want) => {
    expect(metadataCandidates(issuer)).toEqual(want);
  });

  it.each([
    [{ scope: "a b  c" }, ["a", "b", "c"]],
    [{ scp: ["a", "b"] }, ["a", "b"]],
    [{ scp: "a" }, ["a"]],
    [{ scope: "a", scp: ["a", "b", 3] }, ["a", "b"]],
    [{}, []],
  ])("grantedScopes(%j) → %j", (payload, want) => {
    expect(grantedScopes(payload as JWTPayload)).toEqual(want);
  });

  it("stripAuthorization removes the header from both views of a real request", async () => {
    let seen: { headers: unknown; raw: string[] } | undefined;
    const port = await listen((req, res) => {
      stripAuthorization(req);
      seen = { headers: req.headers.authorization, raw: [...req.rawHeaders] };
      res.end();
    });
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({
        port,
        host: "127.0.0.1",
        headers: { Authorization: "Bearer secret-canary", "x-a": "1" },
      });
      req.on("response", (res) => res.resume().on("end", resolve));
      req.on("error", reject);
      req.end();
    });
    expect(seen?.headers).toBeUndefined();
    expect(seen?.raw.join("\n")).not.toContain("secret-canary");
    expect(seen?.raw).toContain("x-a");
  });
});

describe("static bearer tokens", () => {
  const GOOD = "tok_0123456789abcdef0123456789abcdef";
  const OTHER = "second-token-of-another-length-xyz-9876543210";

  function tokens(value = `${GOOD}, ${OTHER}`) {
    vi.stubEnv("MCP_TEST_TOKENS", value);
    return { type: "static" as const, tokenEnv: "MCP_TEST_TOKENS" };
  }

  it("accepts every listed token", async () => {
    const { handle } = await serve(tokens());
    expect((await post(handle, `Bearer ${GOOD}`)).status).toBe(200);
    expect((await post(handle, `Bearer ${OTHER}`)).status).toBe(200);
  });

  it("answers a missing token with 401, a bare Bearer challenge and a JSON-RPC error", async () => {
    const { handle, logs } = await serve(tokens());
    const res = await post(handle);
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe("Bearer");
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect(logs.some((line) => line.includes("refused: 401"))).toBe(true);
    // Another scheme counts as no bearer token at all.
    expect((await post(handle, `Basic ${Buffer.from(`u:${GOOD}`).toString("base64")}`)).status).toBe(401);
  });

  it.each([
    ["a wrong token of the same length", `${GOOD.slice(0, -1)}X`],
    ["a prefix of a good token", GOOD.slice(0, 10)],
    ["a good token with more after it", `${GOOD}extra`],
    ["one character", "x"],
    ["a very long token", "y".repeat(8000)],
    ["two good tokens joined", `${GOOD},${OTHER}`],
  ])("refuses %s with 401 invalid_token, and never logs it", async (_, token) => {
    const { handle, logs } = await serve(tokens());
    const res = await post(handle, `Bearer ${token}`);
    expect(res.status).toBe(401);
    expect(challenge(res.headers["www-authenticate"])).toMatchObject({ error: "invalid_token" });
    expect(JSON.parse(res.body).error.message).toMatch(/Unauthorized/);
    expect(logs.join("\n")).not.toContain(token.slice(0, 8));
  });

  it("answers a malformed Authorization header with 400 invalid_request", async () => {
    const { handle } = await serve(tokens());
    const res = await post(handle, "Bearer two parts");
    expect(res.status).toBe(400);
    expect(challenge(res.headers["www-authenticate"])).toMatchObject({ error: "invalid_request" });
  });

  it("keeps /healthz public and serves no metadata", async () => {
    const { handle } = await serve(tokens());
    expect((await fetch(`http://127.0.0.1:${handle.port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${handle.port}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });

  it("refuses to start when the variable is missing or empty, naming it", async () => {
    await expect(serve({ type: "static", tokenEnv: "MCP_TEST_NO_SUCH_VARIABLE" })).rejects.toThrow(
      /MCP_TEST_NO_SUCH_VARIABLE is not set/,
    );
    await expect(serve(tokens(" , "))).rejects.toThrow(/MCP_TEST_TOKENS is empty/);
  });

  it("warns about short tokens without printing them", () => {
    const logs: string[] = [];
    createEndpointAuth(
      { type: "static", tokenEnv: "T" },
      { env: { T: "short1,abcdefghijklmnopqrstuvwxyz" }, log: (l) => logs.push(l) },
    );
    expect(logs).toEqual([expect.stringContaining("1 token(s) in T are shorter than 16")]);
    expect(logs.join()).not.toContain("short1");
  });

  it("lets the SDK Client in with a good token and keeps it out with a bad one; tools never see the token", async () => {
    const { handle, provider, logs } = await serve(tokens());
    const { client } = await connect(handle.url, GOOD);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo", "slow"]);
    await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(provider.calls).toHaveLength(1);
    await expect(connect(handle.url, "not-a-good-token")).rejects.toMatchObject({ code: 401 });
    await expect(connect(handle.url, undefined)).rejects.toMatchObject({ code: 401 });
    expect(logs.join("\n")).not.toContain(GOOD);
  });

  it("binds a session to the token that opened it", async () => {
    const { handle } = await serve(tokens());
    const { transport } = await connect(handle.url, GOOD);
    const list = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    const session = { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-06-18" };
    const same = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { ...session, authorization: `Bearer ${GOOD}` }),
      body: list,
    });
    expect(same.status).toBe(200);
    const other = await raw({
      port: handle.port,
      headers: mcpHeaders(handle.port, { ...session, authorization: `Bearer ${OTHER}` }),
      body: list,
    });
    expect(other.status).toBe(404);
  });
});

describe("OAuth protected resource", () => {
  let as: AuthServer;
  let attackerKey: CryptoKey;
  beforeAll(async () => {
    attackerKey = (await generateKeyPair("ES256")).privateKey;
  });

  async function setup(extra: Partial<OAuthResourceAuthConfig> = {}) {
    as = await startAuthServer();
    return serve(oauth(as, extra));
  }

  it("serves RFC 9728 metadata at the path-suffixed and the bare well-known URL, publicly", async () => {
    const { handle } = await setup({ resourceName: "Test MCP" });
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await fetch(`http://127.0.0.1:${handle.port}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(await res.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ["header"],
        scopes_supported: [SCOPE],
        resource_name: "Test MCP",
      });
    }
    const preflight = await fetch(`http://127.0.0.1:${handle.port}/.well-known/oauth-protected-resource/mcp`, {
      method: "OPTIONS",
    });
    expect(preflight.status).toBe(204);
    expect((await fetch(`http://127.0.0.1:${handle.port}/.well-known/oauth-protected-resource/other`)).status).toBe(
      404,
    );
    expect((await fetch(`http://127.0.0.1:${handle.port}/healthz`)).status).toBe(200);
  });

  it("serves metadata at the resource's own path when it differs from /mcp", async () => {
    as = await startAuthServer();
    const { handle } = await serve(oauth(as, { resource: "https://gw.example.com/teams/a/mcp" }));
    const res = await fetch(`http://127.0.0.1:${handle.port}/.well-known/oauth-protected-resource/teams/a/mcp`);
    expect(await res.json()).toMatchObject({ resource: "https://gw.example.com/teams/a/mcp" });
    const challenged = await post(handle);
    expect(challenge(challenged.headers["www-authenticate"]).resource_metadata).toBe(
      "https://gw.example.com/.well-known/oauth-protected-resource/teams/a/mcp",
    );
  });

  it("answers no token with 401 and a challenge naming the metadata and scope, without an error code", async () => {
    const { handle } = await setup();
    const res = await post(handle);
    expect(res.status).toBe(401);
    expect(challenge(res.headers["www-authenticate"])).toEqual({ resource_metadata: METADATA_URL, scope: SCOPE });
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("accepts a good token", async () => {
    const { handle } = await setup();
    const res = await post(handle, `Bearer ${await as.sign()}`);
    expect(res.status).toBe(200);
  });

  const bad: Array<[string, () => Promise<string>, RegExp]> = [
    ["an expired token", () => as.sign({ exp: Math.floor(Date.now() / 1000) - 600 }), /expired/],
    ["a token for another audience", () => as.sign({ aud: "https://other.example.com/mcp" }), /resource/],
    [
      "a token from another issuer",
      () => as.sign({ iss: "https://evil.example.com" }),
      /accepted authorization server/,
    ],
    ["a token signed with another key", () => as.sign({}, { key: attackerKey }), /signature/],
    [
      "a token with no signature (alg none)",
      async () =>
        new UnsecuredJWT({
          iss: as.issuer,
          aud: RESOURCE,
          scope: SCOPE,
          exp: Math.floor(Date.now() / 1000) + 300,
        }).encode(),
      /algorithm/,
    ],
    [
      "a token with an HMAC signature",
      () => as.sign({}, { alg: "HS256", key: new TextEncoder().encode("0123456789abcdef0123456789abcdef") }),
      /algorithm/,
    ],
    ["a token not valid yet", () => as.sign({ nbf: Math.floor(Date.now() / 1000) + 600 }), /not valid yet/],
    ["a token issued in the future", () => as.sign({ iat: Math.floor(Date.now() / 1000) + 600 }), /future/],
    ["a token with no expiry", () => as.sign({ exp: undefined }), /exp/],
    ["a token with an unknown key id", () => as.sign({}, { kid: "key-2" }), /signature/],
    ["something that is not a JWT", async () => "not.a.jwt", /not a JWT/],
  ];

  it.each(bad)("refuses %s with 401 invalid_token and the metadata URL", async (_, make, description) => {
    const { handle, logs } = await setup();
    const token = await make();
    const res = await post(handle, `Bearer ${token}`);
    expect(res.status).toBe(401);
    const params = challenge(res.headers["www-authenticate"]);
    expect(params).toMatchObject({ error: "invalid_token", resource_metadata: METADATA_URL });
    expect(params.error_description).toMatch(description);
    expect(JSON.parse(res.body).error.message).toMatch(/^Unauthorized: /);
    expect(logs.join("\n")).not.toContain(token);
  });

  it("allows a little clock skew, no more", async () => {
    const { handle } = await setup();
    const now = Math.floor(Date.now() / 1000);
    expect((await post(handle, `Bearer ${await as.sign({ exp: now - 10 })}`)).status).toBe(200);
    expect((await post(handle, `Bearer ${await as.sign({ nbf: now + 10 })}`)).status).toBe(200);
    expect((await post(handle, `Bearer ${await as.sign({ iat: now + 10 })}`)).status).toBe(200);
    expect((await post(handle, `Bearer ${await as.sign({ exp: now - 60 })}`)).status).toBe(401);
    expect((await post(handle, `Bearer ${await as.sign({ nbf: now + 60 })}`)).status).toBe(401);
    expect((await post(handle, `Bearer ${await as.sign({ iat: now + 60 })}`)).status).toBe(401);
  });

  it("refuses a token without the required scope with 403 insufficient_scope", async () => {
    const { handle } = await setup();
    const res = await post(handle, `Bearer ${await as.sign({ scope: "other:scope" })}`);
    expect(res.status).toBe(403);
    expect(challenge(res.headers["www-authenticate"])).toMatchObject({
      error: "insufficient_scope",
      scope: SCOPE,
      resource_metadata: METADATA_URL,
    });
    expect(JSON.parse(res.body).error.message).toContain(SCOPE);
    // `scp` as an array (Entra, Okta) counts too.
    expect((await post(handle, `Bearer ${await as.sign({ scope: undefined, scp: [SCOPE] })}`)).status).toBe(200);
  });

  it("takes an audience list: a token naming any of them passes, the resource alone no longer does", async () => {
    as = await startAuthServer();
    const { handle } = await serve(oauth(as, { audience: ["api://mcp", "https://alt.example.com"] }));
    expect((await post(handle, `Bearer ${await as.sign({ aud: ["x", "api://mcp"] })}`)).status).toBe(200);
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(401);
  });

  it("discovers the JWKS once and caches it", async () => {
    const { handle } = await setup();
    for (let i = 0; i < 5; i++) expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(200);
    expect(as.hits["/.well-known/oauth-authorization-server"]).toBe(1);
    expect(as.hits["/jwks"]).toBe(1);
  });

  it("uses a configured jwksUrl without discovery", async () => {
    as = await startAuthServer({ discovery: "none" });
    const { handle } = await serve(oauth(as, { jwksUrl: `http://127.0.0.1:${as.port}/jwks` }));
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(200);
    expect(Object.keys(as.hits)).toEqual(["/jwks"]);
  });

  it("finds OpenID metadata appended to an issuer with a path, and takes RS256", async () => {
    as = await startAuthServer({ alg: "RS256", path: "/tenant1", discovery: "openid-appended" });
    const { handle } = await serve(oauth(as));
    expect((await post(handle, `Bearer ${await as.sign()}`)).status).toBe(200);
    expect(as.hits["/tenant1/.well-known/openid-configuration"]).toBe(1);
  });

  it("accepts tokens of several authorization servers, each checked against its own keys", async () => {
    const first = await startAuthServer();
    const second = await startAuthServer({ alg: "RS256" });
    const { handle } = await serve({
      type: "oauth",
      resource: RESOURCE,
      authorizationServers: [first.issuer, second.issuer],
    });
    expect((await post(handle, `Bearer ${await first.sign()}`)).status).toBe(200);
    expect((await post(handle, `Bearer ${await second.sign()}`)).status).toBe(200);
    // Signed by the second server's key but claiming to come from the first.
    expect((await post(handle, `Bearer ${await second.sign({ iss: first.issuer })}`)).status).toBe(401);
  });

  it("answers 503 when the issuer's keys cannot be found, and refuses metadata naming another issuer", async () => {
    as = await startAuthServer({ discovery: "none" });
    const { handle, logs } = await serve(oauth(as));
    const res = await post(handle, `Bearer ${await as.sign()}`);
    expect(res.status).toBe(503);
    expect(res.headers["www-authenticate"]).toBeUndefined();
    expect(res.headers["retry-after"]).toBe("10");
    expect(logs.join("\n")).toMatch(/no authorization server metadata/);

    const liar = await startAuthServer({ issuerInMetadata: "https://evil.example.com" });
    const second = await serve(oauth(liar));
    expect((await post(second.handle, `Bearer ${await liar.sign()}`)).status).toBe(503);
    expect(second.logs.join("\n")).toMatch(/names issuer "https:\/\/evil.example.com"/);
  });

  it("lets the SDK Client in with a good token and keeps it out with a bad one", async () => {
    const { handle, provider } = await setup();
    const { client } = await connect(handle.url, await as.sign());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo", "slow"]);
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({
      structuredContent: { args: { text: "hi" } },
    });
    expect(provider.calls).toHaveLength(1);
    await expect(connect(handle.url, await as.sign({ aud: "https://other.example.com" }))).rejects.toMatchObject({
      code: 401,
    });
    await expect(connect(handle.url, await as.sign({}, { key: attackerKey }))).rejects.toMatchObject({ code: 401 });
  });

  it("works stateless, checking the token on every request", async () => {
    as = await startAuthServer();
    const { handle } = await serve(oauth(as), { stateless: true });
    const { client } = await connect(handle.url, await as.sign());
    expect((await client.listTools()).tools).toHaveLength(2);
  });

  it("binds a session to its subject: another user's token cannot use it", async () => {
    const { handle } = await setup();
    const { transport } = await connect(handle.url, await as.sign());
    const list = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    const session = { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-06-18" };
    const request = async (sub: string) =>
      raw({
        port: handle.port,
        headers: mcpHeaders(handle.port, { ...session, authorization: `Bearer ${await as.sign({ sub })}` }),
        body: list,
      });
    expect((await request("user-1")).status).toBe(200);
    expect((await request("user-2")).status).toBe(404);
  });

  it("rejects configurations that would weaken it", () => {
    const base = { type: "oauth" as const, resource: RESOURCE, authorizationServers: ["https://as.example.com"] };
    const bad: Array<[Partial<OAuthResourceAuthConfig>, RegExp]> = [
      [{ authorizationServers: ["http://as.example.com"] }, /https/],
      [{ jwksUrl: "http://keys.example.com/jwks" }, /jwksUrl must be https/],
      [{ resource: "http://mcp.example.com/mcp" }, /resource must be https/],
      [{ resource: "https://mcp.example.com/mcp#frag" }, /fragment/],
      [{ authorizationServers: [] }, /at least one/],
      [{ algorithms: ["RS256", "HS256"] }, /HS256/],
      [{ algorithms: ["none"] }, /none/],
      [{ requiredScopes: ['a"b'] }, /scope/],
      [{ clockToleranceSeconds: 3600 }, /clockTolerance/],
      [{ principalClaim: "iss" }, /principalClaim must name a claim that identifies the caller/],
      [{ principalClaim: "" }, /principalClaim/],
    ];
    for (const [change, message] of bad) {
      expect(() => createEndpointAuth({ ...base, ...change })).toThrow(message);
    }
    // The opt-out lets plain http through for non-loopback hosts.
    expect(() =>
      createEndpointAuth({ ...base, authorizationServers: ["http://as.internal"], allowInsecureHttp: true }),
    ).not.toThrow();
  });
});
