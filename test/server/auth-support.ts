// For the endpoint-auth tests: a tiny authorization server on 127.0.0.1 (RFC 8414 metadata and a JWKS, counting
// what it is asked, able to fail on demand) and the MCP server under test. Everything started is closed when the
// test that started it ends.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Unsettable } from "../support/fixtures.js";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { expect, onTestFinished } from "vitest";
import type { AuthConfig, OAuthResourceAuthConfig } from "../../src/server/auth-config.js";
import { type HttpHandle, serveHttp } from "../../src/server/http.js";
import { FakeProvider } from "./fake-provider.js";
import { INITIALIZE, mcpHeaders, raw } from "./http-support.js";

export const RESOURCE = "https://mcp.example.com/mcp";
export const METADATA_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
export const SCOPE = "mcp:tools";

/** What `/jwks` answers: the key set, or one of the ways an issuer's JWKS endpoint fails. */
export type JwksBehaviour = "keys" | "http-error" | "not-json" | "not-a-key-set" | "reset";

export interface AuthServer {
  issuer: string;
  port: number;
  hits: Record<string, number>;
  jwks: JwksBehaviour;
  /** Signs a token with this server's key (or `key`), issuer and a fresh expiry unless overridden. */
  sign(
    claims?: Unsettable<JWTPayload>,
    options?: { alg?: string; kid?: string; key?: CryptoKey | Uint8Array },
  ): Promise<string>;
}

/** Takes the close of something started: by default it runs when the test ends (a file's beforeAll passes its own). */
export type CloseWith = (close: () => Promise<void>) => void;

/** Serves on 127.0.0.1 (on `port` if given) until the test ends (or `closeWith` closes it). */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
  closeWith: CloseWith = (close) => onTestFinished(close),
): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  closeWith(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

export async function startAuthServer({
  alg = "ES256",
  path = "",
  discovery = "oauth",
  issuerInMetadata,
  closeWith,
}: {
  alg?: "ES256" | "RS256";
  /** Issuer path, e.g. `/tenant1`. */
  path?: string;
  /** Which metadata document it serves. */
  discovery?: "oauth" | "openid-appended" | "none";
  /** What the metadata says the issuer is (default: the real one). */
  issuerInMetadata?: string;
  /** Who closes it (default: the end of the test that started it). */
  closeWith?: CloseWith;
} = {}): Promise<AuthServer> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "key-1", alg, use: "sig" };
  const hits: Record<string, number> = {};
  let issuer = "";
  const port = await listen(
    (req, res) => {
      const url = req.url ?? "/";
      hits[url] = (hits[url] ?? 0) + 1;
      const metadata = JSON.stringify({
        issuer: issuerInMetadata ?? issuer,
        jwks_uri: `http://127.0.0.1:${port}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
      });
      const served =
        (discovery === "oauth" && url === `/.well-known/oauth-authorization-server${path}`) ||
        (discovery === "openid-appended" && url === `${path}/.well-known/openid-configuration`);
      if (served) return void res.writeHead(200, { "content-type": "application/json" }).end(metadata);
      if (url === "/jwks") return void answerJwks({ res, behaviour: server.jwks, jwk });
      res.writeHead(404).end();
    },
    0,
    closeWith,
  );
  issuer = `http://127.0.0.1:${port}${path}`;
  const server: AuthServer = {
    issuer,
    port,
    hits,
    jwks: "keys",
    sign: (claims = {}, options = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const defaults: JWTPayload = {
        iss: issuer,
        aud: RESOURCE,
        sub: "user-1",
        client_id: "client-1",
        scope: SCOPE,
        iat: now,
        exp: now + 300,
      };
      // A claim given as undefined is left out.
      const payload = Object.fromEntries(
        Object.entries({ ...defaults, ...claims }).filter(([, value]) => value !== undefined),
      );
      return new SignJWT(payload)
        .setProtectedHeader({ alg: options.alg ?? alg, kid: options.kid ?? "key-1", typ: "at+jwt" })
        .sign(options.key ?? privateKey);
    },
  };
  return server;
}

function answerJwks({ res, behaviour, jwk }: { res: ServerResponse; behaviour: JwksBehaviour; jwk: JWK }): void {
  const json = { "content-type": "application/json" };
  if (behaviour === "keys") res.writeHead(200, json).end(JSON.stringify({ keys: [jwk] }));
  else if (behaviour === "http-error") res.writeHead(500, json).end('{"error":"down"}');
  else if (behaviour === "not-json") res.writeHead(200, json).end("<html>maintenance</html>");
  else if (behaviour === "not-a-key-set") res.writeHead(200, json).end(JSON.stringify({ keys: "none" }));
  else res.socket?.destroy();
}

/** A token nobody signed: the right-looking header and whatever claims, with a junk signature. */
export function forge(claims: JWTPayload, header: Record<string, unknown> = { alg: "ES256", kid: "key-1" }): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part(header)}.${part(claims)}.${Buffer.alloc(64, 7).toString("base64url")}`;
}

/** The MCP server under test, with this endpoint auth. */
export async function serve(auth: AuthConfig, extra: { stateless?: boolean } = {}) {
  const provider = new FakeProvider();
  const logs: string[] = [];
  const handle: HttpHandle = await serveHttp({
    provider,
    name: "test",
    version: "1.0.0",
    port: 0,
    auth,
    log: (line) => logs.push(line),
    ...extra,
  });
  onTestFinished(() => handle.close());
  return { handle, provider, logs };
}

export function oauth(server: AuthServer, extra: Partial<OAuthResourceAuthConfig> = {}): OAuthResourceAuthConfig {
  return {
    type: "oauth",
    resource: RESOURCE,
    authorizationServers: [server.issuer],
    requiredScopes: [SCOPE],
    ...extra,
  };
}

/** An initialize POST with this Authorization header (none when undefined). */
export function post(handle: HttpHandle, authorization?: string) {
  const headers = mcpHeaders(handle.port, authorization === undefined ? {} : { authorization });
  return raw({ port: handle.port, headers, body: INITIALIZE });
}

/** The SDK's Client connected with this bearer token (none when undefined). */
export async function connect(url: string, token: string | undefined) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport };
}

/** The parameters of a `Bearer k="v", …` challenge. */
export function challenge(header: string | string[] | undefined): Record<string, string> {
  expect(typeof header).toBe("string");
  expect(header as string).toMatch(/^Bearer\b/);
  return Object.fromEntries([...(header as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}
