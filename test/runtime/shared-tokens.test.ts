// One OAuth client-credentials token for three replicas (engines wired as `serve` wires them: openSharedState with
// a real redis-server and a state secret), against a loopback token endpoint that counts its requests: one token
// request for concurrent calls on every replica, nothing readable in Redis, one new token after a 401, and each
// replica on its own while Redis is stopped, shared again once it is back.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { openSharedState, type SharedState } from "../../src/runtime/shared/shared-state.js";
import { RedisServer } from "../support/redis.js";
import { json, Upstream } from "../support/upstream.js";

const CLIENT_SECRET = "client-s3cret-canary-7f3a9c";
const STATE_SECRET = "state-secret-of-every-replica-0123456789";

let server: RedisServer;
let api: Upstream;
let catalog: Catalog;
let admin: RedisConnection;
/** Tokens the API refuses (401), as after a revocation. */
const refused = new Set<string>();
let issued = 0;
let replicas: SharedState[] = [];

beforeAll(async () => {
  server = await RedisServer.start();
  api = await Upstream.start();
  catalog = await loadCatalog({
    name: "shared",
    document: {
      openapi: "3.0.3",
      info: { title: "Shared tokens", version: "1" },
      servers: [{ url: api.url }],
      paths: {
        "/items": {
          get: { operationId: "listItems", security: [{ oauth: [] }], responses: { "200": { description: "ok" } } },
        },
      },
      components: {
        securitySchemes: {
          oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${api.url}/oauth/token`, scopes: {} } } },
        },
      },
    },
  });
  admin = await connectRedis({ url: server.url, log: () => {} });
});
afterAll(async () => {
  await admin?.close();
  await api?.close();
  await server?.stop();
});
beforeEach(async () => {
  await admin.sendCommand(["FLUSHALL"]);
  refused.clear();
  issued = 0;
  api.on("POST", "/oauth/token", async (context) => {
    const token = `tok-${++issued}`;
    // Slow enough that calls on every replica arrive while the first request is under way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await json({ access_token: token, token_type: "Bearer", expires_in: 3600 })(context);
  });
  api.on("GET", "/items", (context) => {
    const token = context.recorded.headers.authorization?.replace(/^Bearer /, "") ?? "";
    if (refused.has(token)) return json({ error: "invalid_token" }, { status: 401 })(context);
    return json({ items: [] })(context);
  });
  replicas = await Promise.all(
    [1, 2, 3].map(() =>
      openSharedState({ state: server.url, stateSecrets: [STATE_SECRET], commandTimeoutMs: 500, log: () => {} }),
    ),
  );
});
afterEach(async () => {
  for (const replica of replicas) await replica.close();
  api.reset();
});

const tokenRequests = (): number => api.to("/oauth/token").length;

function engines(): Engine[] {
  const env = { OAUTH_CLIENT_ID_OAUTH: "client-1", OAUTH_CLIENT_SECRET_OAUTH: CLIENT_SECRET };
  return replicas.map((shared) => new Engine({ catalog, env, ...(shared.tokens ? { tokens: shared.tokens } : {}) }));
}

/** `count` concurrent calls spread round-robin over the engines; every one must succeed. */
async function callAll(spread: Engine[], count = 30): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => spread[i % spread.length]!.callTool("listItems", {})),
  );
  for (const result of results) expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
}

/** Every key in Redis with its value (strings only: the cache keeps nothing else). */
async function everything(): Promise<Array<{ key: string; type: unknown; value: unknown }>> {
  const keys = (await admin.sendCommand(["KEYS", "*"])) as string[];
  return Promise.all(
    keys.map(async (key) => {
      const type = await admin.sendCommand(["TYPE", key]);
      return { key, type, value: type === "string" ? await admin.sendCommand(["GET", key]) : undefined };
    }),
  );
}

describe("one client-credentials token for every replica", () => {
  it("30 concurrent calls over three replicas make one token request", async () => {
    await callAll(engines());
    expect(tokenRequests()).toBe(1);
  });

  it("keeps neither the access token nor the client secret in Redis in clear", async () => {
    await callAll(engines());
    const entries = await everything();
    expect(entries.map((entry) => entry.key)).toEqual([expect.stringMatching(/^openapi-mcp:oauth:/)]);
    const text = JSON.stringify(entries);
    for (const secret of ["tok-1", CLIENT_SECRET, "client-1"]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(secret).toString("base64").replace(/=+$/, ""));
    }
  });

  it("after a 401, makes one new token request across the replicas", async () => {
    const spread = engines();
    await callAll(spread);
    const before = api.to("/items").length;
    refused.add("tok-1");
    await callAll(spread);
    expect(tokenRequests()).toBe(2);
    // Each call tried tok-1 once at most, then tok-2.
    const sent = api
      .to("/items")
      .slice(before)
      .map((request) => request.headers.authorization);
    expect(sent.filter((header) => header === "Bearer tok-2")).toHaveLength(30);
    expect(sent.filter((header) => header !== "Bearer tok-2").length).toBeLessThanOrEqual(30);
  });
});

describe("Redis lost", () => {
  it("each replica fetches its own token while Redis is stopped, and they share one again once it is back", async () => {
    const spread = engines();
    await callAll(spread);
    expect(tokenRequests()).toBe(1);
    await server.stop();
    try {
      await callAll(spread);
      expect(tokenRequests()).toBe(1 + spread.length);
    } finally {
      await server.resume();
    }
    for (const replica of replicas)
      await expect
        .poll(() => replica.redis?.sendCommand(["PING"]).catch(() => "down"), { timeout: 10_000 })
        .toBe("PONG");
    // Past the pause in which a replica that found Redis lost does not ask it again.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await callAll(spread);
    expect(tokenRequests()).toBe(2 + spread.length);
  });
});

describe("without a state secret", () => {
  it("keeps the cache per replica and says so once at start, naming the flag", async () => {
    const lines: string[] = [];
    const state = await openSharedState({ state: server.url, log: (line) => lines.push(line) });
    await state.close();
    expect(state.tokens).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/^WARNING .*--state-secret \(MCP_STATE_SECRET\).*per replica/)]);
    const quiet: string[] = [];
    await (
      await openSharedState({ state: server.url, clientCredentials: false, log: (line) => quiet.push(line) })
    ).close();
    expect(quiet).toEqual([]);
  });
});
