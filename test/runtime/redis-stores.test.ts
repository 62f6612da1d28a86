// The Redis stores of used states and users' tokens, against a real redis-server: a state is used once across
// replicas, even when both try at the same moment; tokens are sealed as the file store seals them (keys rotate,
// an entry moved to another principal does not open), and Redis lost is a clear error or refusal, never a crash.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignInStates } from "../../src/runtime/sign-in/oauth-state.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { RedisUsedNonces } from "../../src/runtime/shared/redis-nonces.js";
import { RedisTokenStore, TOKENS_PREFIX } from "../../src/runtime/shared/redis-token-store.js";
import { readTokenKeys } from "../../src/runtime/sign-in/token-keys.js";
import { RedisServer } from "../support/redis.js";

let server: RedisServer;
const connections: RedisConnection[] = [];

beforeAll(async () => {
  server = await RedisServer.start();
});
afterAll(async () => {
  for (const connection of connections) await connection.close();
  await server?.stop();
});

async function connection(): Promise<RedisConnection> {
  const made = await connectRedis({ url: server.url, log: () => {}, commandTimeoutMs: 500 });
  connections.push(made);
  return made;
}

const keys = (value: string) => readTokenKeys({ value, purpose: "the test" });
const keyText = () => randomBytes(32).toString("base64");
const ALICE = { principal: "alice", scheme: "github" };
const tokens = (name: string) => ({ accessToken: `${name}-access-canary`, refreshToken: `${name}-refresh-canary` });

describe("used states in Redis", () => {
  it("are used once across replicas, also when 20 try the same state at once", async () => {
    const replicas = [
      new RedisUsedNonces({ redis: await connection() }),
      new RedisUsedNonces({ redis: await connection() }),
    ];
    const nonce = randomBytes(16).toString("base64url");
    const expiresAt = Date.now() + 60_000;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.add(nonce, expiresAt)));
    expect(answers.filter((a) => a === "added")).toHaveLength(1);
    expect(answers.filter((a) => a === "used")).toHaveLength(19);
    // Kept in Redis until the state expires, not longer.
    const ttl = Number(await connections[0]!.sendCommand(["PTTL", `openapi-mcp:nonce:${nonce}`]));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("refuse a sign-in state while Redis is lost, and take it when Redis is back", async () => {
    const states = new SignInStates({
      keys: keys(keyText()),
      usedNonces: new RedisUsedNonces({ redis: await connection() }),
    });
    const state = states.seal({
      principal: "alice",
      scheme: "github",
      verifier: "v",
      nonce: "n1",
      expiresAt: Date.now() + 60_000,
    });
    await server.stop();
    try {
      expect(await states.open(state)).toEqual({ refused: "unreachable" });
    } finally {
      await server.resume();
    }
    await expect.poll(async () => "principal" in (await states.open(state)), { timeout: 10_000 }).toBe(true);
    expect(await states.open(state)).toEqual({ refused: "replayed" });
  });
});

describe("users' tokens in Redis", () => {
  it("are shared, sealed, listed per principal, deleted; a rotated key still opens them", async () => {
    const [oldKey, newKey] = [keyText(), keyText()];
    const a = new RedisTokenStore({ redis: await connection(), keys: keys(oldKey) });
    const b = new RedisTokenStore({ redis: await connection(), keys: keys(`${newKey},${oldKey}`) });
    await a.put({ ...ALICE, tokens: tokens("alice") });
    await a.put({ principal: "alice", scheme: "gitlab", tokens: tokens("alice-2") });
    expect(await b.get(ALICE)).toEqual(tokens("alice"));
    expect((await b.list("alice")).sort()).toEqual(["github", "gitlab"]);
    expect(await b.list("bob")).toEqual([]);
    await b.put({ ...ALICE, tokens: tokens("alice-3") });
    // Written again with the new key: the old one can go.
    expect(await new RedisTokenStore({ redis: connections[0]!, keys: keys(newKey) }).get(ALICE)).toEqual(
      tokens("alice-3"),
    );
    expect(await b.delete(ALICE)).toBe(true);
    expect(await a.delete(ALICE)).toBe(false);
    expect(await a.get(ALICE)).toBeUndefined();
  });

  it("refuse an entry moved to another principal; a replica with other keys finds none", async () => {
    const redis = await connection();
    await redis.sendCommand(["FLUSHALL"]);
    const store = new RedisTokenStore({ redis, keys: keys(keyText()) });
    const onlyEntry = async (except?: string): Promise<[string, string, string]> => {
      const [, found] = (await redis.sendCommand(["SCAN", "0", "MATCH", `${TOKENS_PREFIX}*`])) as [string, string[]];
      const hash = found.find((k) => k !== except)!;
      const [[field, value]] = Object.entries(
        (await redis.sendCommand(["HGETALL", hash])) as Record<string, string>,
      ) as [[string, string]];
      return [hash, field, value];
    };
    await store.put({ principal: "mallory", scheme: "github", tokens: tokens("mallory") });
    const [malloryHash, malloryField] = await onlyEntry();
    await store.put({ principal: "victim", scheme: "github", tokens: tokens("victim") });
    const [, , victimValue] = await onlyEntry(malloryHash);
    // The victim's sealed tokens put in place of mallory's: bound to the victim's id, they do not open as mallory's.
    await redis.sendCommand(["HSET", malloryHash, malloryField, victimValue]);
    await expect(store.get({ principal: "mallory", scheme: "github" })).rejects.toThrow(/does not decrypt/);
    expect(await store.list("mallory")).toEqual([]);
    // A replica with other keys does not even find the victim's entry (its names are keyed): no tokens, sign in again.
    const otherKey = new RedisTokenStore({ redis, keys: keys(keyText()) });
    expect(await otherKey.get({ principal: "victim", scheme: "github" })).toBeUndefined();
  });

  it("fail with a clear error while Redis is lost, and work again when it is back", async () => {
    const store = new RedisTokenStore({ redis: await connection(), keys: keys(keyText()) });
    await server.stop();
    try {
      await expect(store.get(ALICE)).rejects.toThrow(
        /^the shared token store \(Redis\) is unreachable \(.+\); try again in a minute$/,
      );
      await expect(store.put({ ...ALICE, tokens: tokens("alice") })).rejects.toThrow(/unreachable/);
    } finally {
      await server.resume();
    }
    await expect
      .poll(
        async () =>
          await store.list("alice").then(
            () => true,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
  });
});
