// Key discovery goes through the runtime's bounded send(): redirects within the issuer's origin are followed (each hop
// keeps the scheme the config was checked for), redirects elsewhere are not, and a document past 1 MiB is refused.
// Real authorization servers on 127.0.0.1; the MCP server under test answers a signed token.

import type { IncomingMessage, ServerResponse } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { listen, oauth, post, serve } from "./auth-support.js";

const MIB = 1024 * 1024;

type Routes = Record<string, (res: ServerResponse) => void>;

/** An issuer on 127.0.0.1 whose routes the test writes (given its origin and key set); what it was asked, a token. */
async function issuerServer(routes: (issuer: { origin: string; jwks: object }) => Routes) {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" }] };
  const hits: string[] = [];
  let table: Routes = {};
  const port = await listen((req: IncomingMessage, res) => {
    hits.push(req.url ?? "");
    const route = table[req.url ?? ""];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  const origin = `http://127.0.0.1:${port}`;
  table = routes({ origin, jwks });
  const token = () =>
    new SignJWT({ iss: origin, aud: "https://mcp.example.com/mcp", sub: "user-1", scope: "mcp:tools" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
  return { origin, hits, token };
}

const json = (body: unknown) => (res: ServerResponse) =>
  void res
    .writeHead(200, { "content-type": "application/json" })
    .end(typeof body === "string" ? body : JSON.stringify(body));
const redirect = (status: number, location: string) => (res: ServerResponse) =>
  void res.writeHead(status, { location }).end();

/** Everything `oauth()` needs of an auth server, for one that only answers the routes the test wrote. */
function config(origin: string) {
  return oauth({ issuer: origin, port: 0, hits: {}, jwks: "keys", sign: async () => "" });
}

describe("key discovery through send()", () => {
  it("follows redirects within the issuer's origin, for the metadata and for the JWKS", async () => {
    const as = await issuerServer(({ origin, jwks }) => ({
      "/.well-known/oauth-authorization-server": redirect(301, "/as/metadata.json"),
      "/as/metadata.json": json({ issuer: origin, jwks_uri: `${origin}/jwks` }),
      "/jwks": redirect(307, `${origin}/keys/current.json`),
      "/keys/current.json": json(jwks),
    }));
    const { handle } = await serve(config(as.origin));
    expect((await post(handle, `Bearer ${await as.token()}`)).status).toBe(200);
    expect(as.hits).toEqual([
      "/.well-known/oauth-authorization-server",
      "/as/metadata.json",
      "/jwks",
      "/keys/current.json",
    ]);
  });

  it("does not follow a redirect to another origin: it looks in the next place instead", async () => {
    const elsewhere = await issuerServer(() => ({}));
    const as = await issuerServer(({ origin, jwks }) => ({
      "/.well-known/oauth-authorization-server": redirect(302, `${elsewhere.origin}/metadata`),
      "/.well-known/openid-configuration": json({ issuer: origin, jwks_uri: `${origin}/jwks` }),
      "/jwks": json(jwks),
    }));
    const { handle } = await serve(config(as.origin));
    expect((await post(handle, `Bearer ${await as.token()}`)).status).toBe(200);
    expect(elsewhere.hits).toEqual([]);
    expect(as.hits).toEqual(["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/jwks"]);
  });

  it("refuses a JWKS that redirects to another origin: 503, and the log says why", async () => {
    const elsewhere = await issuerServer(() => ({}));
    const as = await issuerServer(({ origin }) => ({
      "/.well-known/oauth-authorization-server": json({ issuer: origin, jwks_uri: `${origin}/jwks` }),
      "/jwks": redirect(302, `${elsewhere.origin}/jwks`),
    }));
    const { handle, logs } = await serve(config(as.origin));
    expect((await post(handle, `Bearer ${await as.token()}`)).status).toBe(503);
    expect(elsewhere.hits).toEqual([]);
    expect(logs.join("\n")).toMatch(/JWKS at http:\/\/127\.0\.0\.1:\d+\/jwks: .*redirected to another origin/);
  });

  it("reads metadata of exactly 1 MiB and refuses one byte more", async () => {
    const padded = (origin: string, size: number) => {
      const text = JSON.stringify({ issuer: origin, jwks_uri: `${origin}/jwks` });
      return text.slice(0, -1) + " ".repeat(size - text.length) + "}";
    };
    let metadata = "";
    const as = await issuerServer(({ jwks }) => ({
      "/.well-known/oauth-authorization-server": (res) => json(metadata)(res),
      "/jwks": json(jwks),
    }));
    metadata = padded(as.origin, MIB + 1);
    const over = await serve(config(as.origin));
    expect((await post(over.handle, `Bearer ${await as.token()}`)).status).toBe(503);
    expect(over.logs.join("\n")).toMatch(/metadata at .*: larger than 1048576 bytes/);

    metadata = padded(as.origin, MIB);
    const exact = await serve(config(as.origin));
    expect((await post(exact.handle, `Bearer ${await as.token()}`)).status).toBe(200);
  });
});
