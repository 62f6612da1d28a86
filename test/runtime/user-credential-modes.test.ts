// The per-user modes a settings file chooses: bad settings stop the start with a message naming the place; the
// forwarded mode places each caller's header as the scheme says and never the caller's MCP token; the exchanged
// mode keeps a token per principal until shortly before it expires (an injected clock), against a real exchange
// endpoint on 127.0.0.1.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Settings } from "../../src/catalog/settings.js";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { readSettings } from "../../src/load/settings.js";
import { Engine } from "../../src/runtime/engine.js";
import type { Caller } from "../../src/runtime/types.js";
import { credentialModes, userCredentialModes } from "../../src/runtime/credentials/user-credential-modes.js";
import { startAuthServer } from "../server/auth-support.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { EXCHANGE_CLIENT, startExchangeEndpoint, UPSTREAM_AUDIENCE } from "../support/token-exchange.js";
import { json, Upstream } from "../support/upstream.js";

let api: Upstream;
let catalog: Catalog;
const temp = tempDir();

beforeAll(async () => {
  api = await Upstream.start();
  const spec = writeFile(temp.dir, "me.json", {
    openapi: "3.0.3",
    info: { title: "Me", version: "1" },
    servers: [{ url: api.url }],
    components: {
      securitySchemes: {
        token: { type: "http", scheme: "bearer" },
        key: { type: "apiKey", in: "header", name: "X-Key" },
        pair: { type: "http", scheme: "basic" },
      },
    },
    security: [{ token: [] }],
    paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
  });
  catalog = await loadCatalog(spec, {});
});
afterAll(async () => {
  await api.close();
  temp.remove();
});
beforeEach(() => {
  api.reset();
  api.on("GET", "/me", json({ ok: true }));
});

const settings = (credentials: Settings["credentials"]): Settings => ({
  file: "s.yaml",
  ...(credentials ? { credentials } : {}),
});
const forwarded = (header: string) => settings({ token: { perUser: { forwarded: { header } } } });
const build = async (given: Settings, env: Record<string, string> = {}) =>
  (await userCredentialModes({ settings: given, catalog, env })).userCredentials ?? {};
const caller = (headers: Record<string, string>, accessToken = "mcp-token-of-alice"): Caller => ({
  principal: "alice",
  claims: { iss: "https://issuer.example" },
  accessToken,
  headers,
});

describe("per-user settings", () => {
  it.each([
    ["Authorization", "MCP forbids token passthrough"],
    ["cookie", "name a header of its own"],
    ["Host", "name a header of its own"],
    ["Connection", "name a header of its own"],
    ["Transfer-Encoding", "name a header of its own"],
    ["Mcp-Session-Id", "one of MCP's own headers"],
    ["X Upstream", "is not a header name"],
  ])("refuse to forward %s", async (header, why) => {
    await expect(build(forwarded(header))).rejects.toThrow(`s.yaml#/credentials/token/perUser/forwarded/header:`);
    await expect(build(forwarded(header))).rejects.toThrow(why);
  });

  it.each([
    [{ tokenUrl: "http://idp.example.com/token" }, "tokenUrl: http://idp.example.com/token is plain http"],
    [{ clientSecret: "${NOT_SET_ANYWHERE}" }, "clientSecret: environment variable NOT_SET_ANYWHERE is not set"],
    [{ scopes: ["a b"] }, "scopes: expected a list of scopes without spaces"],
    // Read once at start, so refused rather than sent as written (credentials' values read them at each call).
    [{ clientSecret: "${file:/run/secrets/exchange}" }, "clientSecret: ${file:/run/secrets/exchange} is not read here"],
  ])("refuse a bad exchange setting (%o)", async (change, message) => {
    const exchange = { tokenUrl: "https://idp.example.com/token", clientId: "c", clientSecret: "s", ...change };
    await expect(build(settings({ token: { perUser: { exchange } } }))).rejects.toThrow(
      `s.yaml#/credentials/token/perUser/exchange/${message}`,
    );
  });

  it("refuse an exchange for a basic scheme, and two modes at once", async () => {
    const exchange = { tokenUrl: "https://idp.example.com/token", clientId: "c", clientSecret: "s" };
    await expect(build(settings({ pair: { perUser: { exchange } } }))).rejects.toThrow("cannot be an HTTP basic pair");
    const both = { perUser: { exchange, forwarded: { header: "X-Up" } } };
    await expect(build(settings({ token: both }))).rejects.toThrow("name exactly one mode");
  });

  it("reads a settings file with per-user modes, and says each scheme's mode", async () => {
    const file = writeFile(temp.dir, "modes.json", {
      credentials: {
        token: { perUser: { forwarded: { header: "X-Upstream-Authorization" } } },
        key: { perUser: { exchange: { tokenUrl: "https://idp.example.com/token", clientId: "c", clientSecret: "s" } } },
      },
    });
    const read = await readSettings(file);
    expect(Object.keys(await build(read))).toEqual(["token", "key"]);
    expect(credentialModes({ settings: read, catalog })).toEqual({
      token: { mode: "forwarded", description: "forwarded from each caller's X-Upstream-Authorization header" },
      key: {
        mode: "exchange",
        description: "exchanged for each caller's MCP access token at https://idp.example.com/token (RFC 8693)",
      },
      pair: { mode: "environment", description: "environment" },
    });
  });
});

describe("forwarded", () => {
  const engine = async () =>
    new Engine({ catalog, env: {}, userCredentials: await build(forwarded("X-Upstream-Authorization")) });

  it.each([["upstream-token-1"], ["Bearer upstream-token-1"], ["bearer   upstream-token-1"]])(
    "accepts %s for a bearer scheme",
    async (sent) => {
      const result = await (await engine()).callTool(
        "getMe",
        {},
        { caller: caller({ "x-upstream-authorization": sent }) },
      );
      expect(result.isError ?? false).toBe(false);
      expect(api.only().headers.authorization).toBe("Bearer upstream-token-1");
    },
  );

  it.each([["mcp-token-of-alice"], ["Bearer mcp-token-of-alice"]])(
    "refuses the caller's own MCP token (%s) and sends nothing",
    async (sent) => {
      const result = await (await engine()).callTool(
        "getMe",
        {},
        { caller: caller({ "x-upstream-authorization": sent }) },
      );
      expect(textOf(result)).toContain("holds your MCP access token, which is never sent upstream");
      expect(textOf(result)).not.toContain("mcp-token-of-alice");
      expect(api.requests).toHaveLength(0);
    },
  );

  it("says what to do without the header, and without a caller", async () => {
    const served = await engine();
    expect(textOf(await served.callTool("getMe", {}, { caller: caller({}) }))).toBe(
      "getMe cannot be called: send your own credential for security scheme 'token' in the X-Upstream-Authorization header. Nothing was sent.",
    );
    expect(textOf(await served.callTool("getMe", {}, {}))).toContain(
      "send the X-Upstream-Authorization header with requests over HTTP to a server that checks callers (serve --transport http --auth static|oauth)",
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe("exchange", () => {
  it("keeps a principal's token until shortly before it expires, then exchanges again", async () => {
    const as = await startAuthServer();
    const endpoint = await startExchangeEndpoint({ jwks: `http://127.0.0.1:${as.port}/jwks`, issuer: as.issuer });
    try {
      endpoint.expiresIn = 600;
      let now = 1_000_000;
      const exchange = settings({
        token: {
          perUser: {
            exchange: {
              tokenUrl: endpoint.url,
              clientId: EXCHANGE_CLIENT.id,
              clientSecret: EXCHANGE_CLIENT.secret,
              audience: UPSTREAM_AUDIENCE,
            },
          },
        },
      });
      const modes = await userCredentialModes({ settings: exchange, catalog, env: {}, exchange: { now: () => now } });
      const served = new Engine({ catalog, env: {}, userCredentials: modes.userCredentials ?? {} });
      const who = caller({}, await as.sign({ sub: "alice" }));
      await served.callTool("getMe", {}, { caller: who });
      now += 539_000; // 9 minutes less a second: still fresh (refreshed a minute before its 10 minutes end)
      await served.callTool("getMe", {}, { caller: who });
      now += 2_000;
      await served.callTool("getMe", {}, { caller: who });
      expect(api.requests.map((r) => r.headers.authorization)).toEqual([
        "Bearer upstream-alice-1",
        "Bearer upstream-alice-1",
        "Bearer upstream-alice-2",
      ]);
      expect(endpoint.exchanges).toHaveLength(2);
    } finally {
      await endpoint.close();
    }
  });

  it("exchanges nothing for a caller without a verified OAuth token (a static token is the server's own)", async () => {
    const exchange = { tokenUrl: "https://idp.example.com/token", clientId: "c", clientSecret: "s" };
    const served = new Engine({
      catalog,
      env: {},
      userCredentials: await build(settings({ token: { perUser: { exchange } } })),
    });
    const result = await served.callTool(
      "getMe",
      {},
      {
        caller: { principal: "static:1", claims: { token: "#1" }, accessToken: "static-secret", headers: {} },
      },
    );
    expect(textOf(result)).toContain("call over HTTP with an OAuth access token (serve --transport http --auth oauth)");
    expect(textOf(result)).not.toContain("static-secret");
    expect(api.requests).toHaveLength(0);
  });
});
