// Exchanged per-user credentials end to end: `serve` over HTTP with `--auth oauth` against a real authorization
// server on 127.0.0.1 (jose keys, a JWKS) that also answers RFC 8693 token exchange. Two principals, through the
// SDK client of each era: each one's upstream request carries only the token exchanged for its own MCP token, and
// never an MCP token; a second call exchanges nothing; a refused exchange sends nothing; a 401 exchanges again.

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { serve } from "../../src/app/serve.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { EXCHANGE_CLIENT, startExchangeEndpoint, UPSTREAM_AUDIENCE } from "../support/token-exchange.js";
import { json, status, Upstream } from "../support/upstream.js";
import { oauth, startAuthServer } from "./auth-support.js";

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

const ME_API = (url: string) => ({
  openapi: "3.0.3",
  info: { title: "Me", version: "1" },
  servers: [{ url }],
  components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } },
  security: [{ token: [] }],
  paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
});

async function setUp() {
  const as = await startAuthServer();
  const exchange = await startExchangeEndpoint({ jwks: `http://127.0.0.1:${as.port}/jwks`, issuer: as.issuer });
  const api = await Upstream.start();
  api.on("GET", "/me", json({ ok: true }));
  const temp = tempDir();
  onTestFinished(async () => {
    await Promise.all([exchange.close(), api.close()]);
    temp.remove();
  });
  const spec = writeFile(temp.dir, "me.openapi.json", ME_API(api.url));
  const config = writeFile(temp.dir, "settings.json", {
    credentials: {
      token: {
        perUser: {
          exchange: {
            tokenUrl: exchange.url,
            clientId: EXCHANGE_CLIENT.id,
            clientSecret: "${EXCHANGE_SECRET}",
            audience: UPSTREAM_AUDIENCE,
            scopes: ["me:read"],
          },
        },
      },
    },
  });
  const logs: string[] = [];
  const running = await serve(spec, {
    transport: "http",
    port: 0,
    config,
    auth: oauth(as),
    env: { EXCHANGE_SECRET: EXCHANGE_CLIENT.secret },
    log: (line) => logs.push(line),
    cache: false,
  });
  onTestFinished(() => running.close());
  return { as, exchange, api, url: running.url!, logs };
}

async function legacyCall(url: string, token: string): Promise<Result> {
  const client = new Client({ name: "legacy", version: "0.0.0" });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  return (await client.callTool({ name: "getMe", arguments: {} })) as Result;
}

async function modernCall(url: string, token: string): Promise<Result> {
  const client = new ModernClient(
    { name: "modern", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  expect(client.getProtocolEra()).toBe("modern");
  return (await client.callTool({ name: "getMe", arguments: {} })) as Result;
}

const bearerOf = (request: { headers: Record<string, unknown> }): unknown => request.headers.authorization;

describe("exchanged per-user credentials", () => {
  it("sends each principal only the token exchanged for its own, in either era, and exchanges once", async () => {
    const { as, exchange, api, url, logs } = await setUp();
    const alice = await as.sign({ sub: "alice" });
    const bob = await as.sign({ sub: "bob", client_id: "client-2" });
    const results = [
      await legacyCall(url, alice),
      await modernCall(url, bob),
      await legacyCall(url, alice),
      await modernCall(url, bob),
    ];
    expect(results.map((r) => r.isError ?? false)).toEqual([false, false, false, false]);
    expect(api.requests.map(bearerOf)).toEqual([
      "Bearer upstream-alice-1",
      "Bearer upstream-bob-2",
      "Bearer upstream-alice-1",
      "Bearer upstream-bob-2",
    ]);
    // One exchange per principal, for the configured audience and scopes; the MCP tokens never went upstream.
    expect(exchange.exchanges.map((e) => [e.subject, e.audience, e.scope])).toEqual([
      ["alice", UPSTREAM_AUDIENCE, "me:read"],
      ["bob", UPSTREAM_AUDIENCE, "me:read"],
    ]);
    const upstreamSaw = JSON.stringify(api.requests.map((r) => [r.url, r.headers, r.body.toString()]));
    const clientsAndLogs = JSON.stringify([results, logs]);
    for (const secret of [alice, bob, EXCHANGE_CLIENT.secret]) expect(upstreamSaw).not.toContain(secret);
    for (const secret of [alice, bob, EXCHANGE_CLIENT.secret, "upstream-alice-1", "upstream-bob-2"])
      expect(clientsAndLogs).not.toContain(secret);
  });

  it("answers a refused exchange with what the provider said, and sends nothing", async () => {
    const { as, exchange, api, url } = await setUp();
    exchange.refuse = { error: "invalid_grant", error_description: "alice may not use this API" };
    const result = await modernCall(url, await as.sign({ sub: "alice" }));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `getMe cannot be called: the token exchange at ${exchange.url} refused it: HTTP 400 (invalid_grant: alice may not use this API). Nothing was sent.`,
    );
    expect(api.requests).toHaveLength(0);
  });

  it("exchanges again when the API refuses the exchanged token", async () => {
    const { as, exchange, api, url } = await setUp();
    api.reset();
    api.on("GET", "/me", status(401), json({ ok: true }));
    const result = await legacyCall(url, await as.sign({ sub: "alice" }));
    expect(result.isError ?? false).toBe(false);
    expect(api.requests.map(bearerOf)).toEqual(["Bearer upstream-alice-1", "Bearer upstream-alice-2"]);
    expect(exchange.exchanges).toHaveLength(2);
  });
});
