// The console's OAuth admins, over HTTP: a real `serve --transport http --console --auth-resource … --auth-issuer …`
// with no admin token, its issuer the loopback authorization server of the endpoint-auth tests (metadata and JWKS).
// An access token carrying `openapi-mcp:admin` (in scope, scp, roles or realm_access.roles) logs in, and a Try it
// run is audited as `console:` and the principal an agent's call with that token is audited as; a valid token
// without it, an expired one, one for another audience and forged ones are refused at the login form; and the API
// answers nothing without the session a login gives, the admin's own access token sent as a bearer included; a
// session ends when the token it was made from expires.

import { join } from "node:path";
import { generateKeyPair, type JWTPayload, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import { type ConsoleServer, startConsoleServer } from "../support/console.js";
import { json, Upstream } from "../support/upstream.js";
import { type AuthServer, connect, forge, RESOURCE, startAuthServer } from "../server/auth-support.js";
import { INITIALIZE, mcpHeaders } from "../server/http-support.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const ADMIN = "openapi-mcp:admin";
const PETS = [{ id: 7, name: "Rex", kind: { species: "dog", goodBoy: true } }];

const closers: Array<() => Promise<void>> = [];
let auth: AuthServer;
let upstream: Upstream;
let server: ConsoleServer;

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("GET", "/pets", json(PETS));
  auth = await startAuthServer({ closeWith: (close) => closers.push(close) });
  server = await startConsoleServer({
    sources: [PETSTORE],
    adminToken: false,
    args: ["--base-url", upstream.url, "--auth-resource", RESOURCE, "--auth-issuer", auth.issuer],
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  for (const close of closers) await close();
});

function login(token: string): Promise<Response> {
  return fetch(`${server.origin}/console/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.origin },
    body: JSON.stringify({ token }),
  });
}

/** A logged-in admin's cookie, CSRF token and name, as the login form gets them. */
async function session(token: string): Promise<{ cookie: string; csrf: string; who: string }> {
  const response = await login(token);
  expect(response.status).toBe(200);
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, ...((await response.json()) as { csrf: string; who: string }) };
}

/** What `/mcp` answers an initialize with this token: 200 for a token the endpoint accepts. */
async function mcpStatus(token: string): Promise<number> {
  const port = Number(new URL(server.origin).port);
  const response = await fetch(`${server.origin}/mcp`, {
    method: "POST",
    headers: mcpHeaders(port, { authorization: `Bearer ${token}` }),
    body: INITIALIZE,
  });
  await response.body?.cancel();
  return response.status;
}

function auditLines(): Array<Record<string, unknown>> {
  return server
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("an OAuth admin at the console", () => {
  it.each<[string, JWTPayload]>([
    ["scope", { scope: `mcp:tools ${ADMIN}` }],
    ["scp, a list", { scope: undefined, scp: ["mcp:tools", ADMIN] }],
    ["scp, a text (as Azure AD sends it)", { scope: undefined, scp: `User.Read ${ADMIN}` }],
    ["roles", { roles: [ADMIN] }],
    ["realm_access.roles (Keycloak)", { realm_access: { roles: ["offline_access", ADMIN] } }],
  ])("logs in with an access token carrying the admin scope or role in %s", async (_, claims) => {
    const token = await auth.sign(claims);
    const { cookie, who } = await session(token);
    expect(who).toContain("user-1");
    const again = await fetch(`${server.origin}/console/api/session`, { headers: { cookie } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { who: string }).who).toBe(who);
    // The token itself is not kept: no answer holds it.
    expect(who).not.toContain(token);
  });

  it("runs a Try it call as that admin: the audit line names console:<the principal the token names>", async () => {
    const token = await auth.sign({ sub: "alice", scope: ADMIN });
    // The principal an agent's call with the same token is audited as.
    const { client } = await connect(`${server.origin}/mcp`, token);
    await client.callTool({ name: "listPets", arguments: {} });
    await expect.poll(() => auditLines().filter((line) => line.tool === "listPets")).toHaveLength(1);
    const agent = auditLines().find((line) => line.tool === "listPets")!.principal as string;
    expect(agent).toContain("alice");

    const { cookie, csrf, who } = await session(token);
    const response = await fetch(`${server.origin}/console/api/try`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, "x-console-csrf": csrf, origin: server.origin },
      body: JSON.stringify({ tool: "listPets", arguments: {} }),
    });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { isError?: boolean; structuredContent?: unknown } };
    expect(result.structuredContent).toEqual({ result: PETS });
    expect(result.isError, JSON.stringify(result)).toBeUndefined();
    expect(upstream.to("/pets")).toHaveLength(2);
    expect(who).toBe(agent);
    await expect
      .poll(() =>
        auditLines()
          .filter((line) => line.tool === "listPets")
          .map((line) => line.principal),
      )
      .toEqual([agent, `console:${agent}`]);
    expect(auditLines().at(-1)).toMatchObject({ outcome: "ok" });
  });

  it.each<[string, JWTPayload]>([
    ["the endpoint's scope only", { scope: "mcp:tools" }],
    ["a longer scope starting with the admin one", { scope: `${ADMIN}istrator` }],
    ["the admin name in a claim that grants nothing (groups)", { groups: [ADMIN] }],
  ])("refuses a valid access token without the admin scope or role: %s", async (_, claims) => {
    const token = await auth.sign(claims);
    expect(await mcpStatus(token)).toBe(200);
    const response = await login(token);
    expect(response.status).toBe(401);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.json()).toEqual({ error: "That is not the console's admin token." });
  });

  it.each<[string, () => Promise<string>]>([
    [
      "expired",
      () => {
        const now = Math.floor(Date.now() / 1000);
        return auth.sign({ scope: ADMIN, iat: now - 600, exp: now - 120 });
      },
    ],
    ["issued for another audience", () => auth.sign({ scope: ADMIN, aud: "https://other.example.com/mcp" })],
    ["with a junk signature", async () => forge({ ...decode(await auth.sign({ scope: ADMIN })) })],
    [
      "signed by another key under the issuer's key id",
      async () => auth.sign({ scope: ADMIN }, { key: (await generateKeyPair("ES256")).privateKey }),
    ],
    ["unsigned (alg none)", async () => new UnsecuredJWT(decode(await auth.sign({ scope: ADMIN }))).encode()],
  ])("refuses an access token carrying the admin scope but %s", async (_, make) => {
    const token = await make();
    expect(await mcpStatus(token)).toBe(401);
    const response = await login(token);
    expect(response.status).toBe(401);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("ends the session when the access token it was made from expires; a token past its exp opens none", {
    timeout: 20_000,
  }, async () => {
    const exp = Math.floor(Date.now() / 1000) + 3;
    const token = await auth.sign({ scope: ADMIN, exp });
    const response = await login(token);
    expect(response.status).toBe(200);
    // The browser is told to forget the cookie by then too (it was kept 8 hours, whatever the token said).
    const cookie = response.headers.get("set-cookie")!;
    expect(Number(/Max-Age=(\d+)/.exec(cookie)?.[1])).toBeLessThanOrEqual(3);
    const headers = { cookie: cookie.split(";")[0]! };
    expect((await fetch(`${server.origin}/console/api/tools`, { headers })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 100 - Date.now()));
    for (const path of ["session", "tools"])
      expect((await fetch(`${server.origin}/console/api/${path}`, { headers })).status, path).toBe(401);
    // The endpoint still takes the token within its 30 s of clock leeway; the console opens no session with it: the
    // admin logs in with a new token, whose scope or role is checked anew.
    expect(await mcpStatus(token)).toBe(200);
    const again = await login(token);
    expect(again.status).toBe(401);
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("answers nothing without a session: not to the admin's access token as a bearer, nor after logout", async () => {
    const token = await auth.sign({ scope: ADMIN });
    const bearer = { authorization: `Bearer ${token}`, origin: server.origin };
    upstream.reset();
    for (const path of ["tools", "session", "activity"])
      expect((await fetch(`${server.origin}/console/api/${path}`, { headers: bearer })).status, path).toBe(401);
    const tryIt = (headers: Record<string, string>) =>
      fetch(`${server.origin}/console/api/try`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ tool: "listPets", arguments: {} }),
      });
    expect((await tryIt(bearer)).status).toBe(401);

    const { cookie, csrf } = await session(token);
    const logout = await fetch(`${server.origin}/console/api/logout`, {
      method: "POST",
      headers: { cookie, "x-console-csrf": csrf, origin: server.origin },
    });
    expect(logout.status).toBe(200);
    expect((await fetch(`${server.origin}/console/api/tools`, { headers: { cookie } })).status).toBe(401);
    expect((await tryIt({ cookie, "x-console-csrf": csrf, origin: server.origin })).status).toBe(401);
    expect(upstream.requests).toHaveLength(0);
  });
});

/** A signed token's claims, to forge or strip its signature. */
function decode(token: string): JWTPayload {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as JWTPayload;
}
