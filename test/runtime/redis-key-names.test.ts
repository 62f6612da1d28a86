// Every Redis key that stands for a caller is a keyed digest, against a real redis-server: after `static:alice`'s
// tokens are stored and her profile's budget counted, everything Redis holds (SCAN, every value, base64 decoded) has
// neither her principal nor any unkeyed digest of it a guess could be checked against; another token key names her
// entries otherwise (the names are keyed). A budget still counts once across replicas. Without --state-secret a
// budget naming a caller is refused, nothing sent or written. Tokens a version before keyed names wrote (unkeyed
// digests) are still read, then moved: no sign-in again, and no unkeyed digest left.

import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { RedisTokenStore } from "../../src/runtime/shared/redis-token-store.js";
import { openSharedState, type SharedState } from "../../src/runtime/shared/shared-state.js";
import { readTokenKeys } from "../../src/runtime/sign-in/token-keys.js";
import { textOf } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { dumpRedis, unkeyedDigests } from "../support/redis-dump.js";
import { json, Upstream } from "../support/upstream.js";

const ALICE = "static:alice";
const SCHEME = "github";
const STATE_SECRET = "state-secret-of-every-replica-names-0123456";
const tokens = { accessToken: "alice-access-canary", refreshToken: "alice-refresh-canary" };
const keys = (value: string) => readTokenKeys({ value, purpose: "the test" });
const keyText = () => randomBytes(32).toString("base64");

let server: RedisServer;
let redis: RedisConnection;
let api: Upstream;
let catalog: Catalog;
const opened: SharedState[] = [];

beforeAll(async () => {
  [server, api] = await Promise.all([RedisServer.start(), Upstream.start()]);
  api.on("GET", "/items", json({ items: [] }));
  redis = await connectRedis({ url: server.url, log: () => {} });
  catalog = await loadCatalog({
    name: "names",
    document: {
      openapi: "3.0.3",
      info: { title: "Names", version: "1" },
      servers: [{ url: api.url }],
      paths: { "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } } },
    },
  });
});
beforeEach(async () => {
  await redis.sendCommand(["FLUSHALL"]);
  api.reset();
  api.on("GET", "/items", json({ items: [] }));
});
afterAll(async () => {
  for (const state of opened) await state.close();
  await redis?.close();
  await api?.close();
  await server?.stop();
});

/** Redis's whole content, and what of alice's principal (or a digest of it) shows there. */
async function aliceIn(): Promise<{ dump: string; found: string[] }> {
  const dump = await dumpRedis(server.url);
  return { dump, found: unkeyedDigests([ALICE, SCHEME]).filter((form) => dump.includes(form)) };
}

/** A replica's engine serving a profile whose callers may make one call a minute each. */
async function replica(stateSecrets: string[]): Promise<Engine> {
  const shared = await openSharedState({ state: server.url, stateSecrets, clientCredentials: false, log: () => {} });
  opened.push(shared);
  const engine = new Engine({ catalog, env: {}, limiter: shared.limiter! });
  return engine.withProfile({
    name: "team",
    tools: () => true,
    budgets: { calls: { requests: 1, windowSeconds: 60 } },
  });
}

const asAlice = { caller: { principal: ALICE, claims: { token: "alice" }, headers: {} } };

describe("Redis keys that stand for a caller", () => {
  it("name users' tokens by keyed digests: nothing of static:alice, and another key names them otherwise", async () => {
    const first = keyText();
    await new RedisTokenStore({ redis, keys: keys(first) }).put({ principal: ALICE, scheme: SCHEME, tokens });
    const { dump, found } = await aliceIn();
    expect(dump).toContain("openapi-mcp:user-tokens:");
    expect(found).toEqual([]);
    const names = (text: string) => new Set(text.split("\n").flatMap((line) => line.match(/[\w-]{40,}/g) ?? []));
    const underFirst = names(dump);
    await redis.sendCommand(["FLUSHALL"]);
    await new RedisTokenStore({ redis, keys: keys(keyText()) }).put({ principal: ALICE, scheme: SCHEME, tokens });
    expect([...names(await dumpRedis(server.url))].filter((name) => underFirst.has(name))).toEqual([]);
  });

  it("count a profile's budget per caller under a keyed digest, once across replicas", async () => {
    const [a, b] = [await replica([STATE_SECRET]), await replica([STATE_SECRET])];
    const tool = catalog.tools[0]!.name;
    expect((await a.callTool(tool, {}, asAlice)).isError).toBeFalsy();
    const refused = await b.callTool(tool, {}, asAlice);
    expect(textOf(refused)).toMatch(/was not sent: this caller's budget for all calls \(1 per 60 s\) is reached/);
    expect(api.requests).toHaveLength(1);
    const { dump, found } = await aliceIn();
    expect(dump).toContain("openapi-mcp:rl:caller:");
    expect(found).toEqual([]);
  });

  it("refuse a budget naming a caller without --state-secret: nothing sent, nothing written", async () => {
    const engine = await replica([]);
    const result = await engine.callTool(catalog.tools[0]!.name, {}, asAlice);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("there is no --state-secret (MCP_STATE_SECRET) to name it by a keyed digest");
    expect(api.requests).toHaveLength(0);
    expect((await aliceIn()).found).toEqual([]);
  });

  it("read tokens stored under the unkeyed names of the version before, then move them there", async () => {
    const key = keys(keyText());
    await writeLegacy(key[0]!);
    expect((await aliceIn()).found.length).toBeGreaterThan(0);
    const store = new RedisTokenStore({ redis, keys: key });
    expect(await store.get({ principal: ALICE, scheme: SCHEME })).toEqual(tokens);
    expect((await aliceIn()).found).toEqual([]);
    expect(await store.get({ principal: ALICE, scheme: SCHEME })).toEqual(tokens);
    expect(await store.list(ALICE)).toEqual([SCHEME]);
  });
});

/** Alice's tokens as the version before keyed names stored them: unkeyed SHA-256 names, sealed bound to them. */
async function writeLegacy(key: { id: string; key: Buffer }): Promise<void> {
  const digest = (parts: unknown[]) => createHash("sha256").update(JSON.stringify(parts)).digest("base64url");
  const id = digest(["openapi-mcp user token", ALICE, SCHEME]);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv);
  cipher.setAAD(Buffer.from(id));
  const plain = Buffer.from(JSON.stringify({ principal: ALICE, scheme: SCHEME, tokens }));
  const data = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  const sealed = { key: key.id, iv: iv.toString("base64"), data: data.toString("base64") };
  const hash = `openapi-mcp:tokens:${digest(["openapi-mcp user tokens of", ALICE])}`;
  await redis.sendCommand(["HSET", hash, id, JSON.stringify(sealed)]);
}
