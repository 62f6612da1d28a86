// The rate limiter kept in a real Redis (redis-server started by the test): the same answers as the in-memory
// sliding log for the same random arrivals, all-or-none across keys, keys that expire, and what happens when Redis
// goes away and comes back (fail closed by default, fail open when told, recovery without a restart).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PENDING_MS, RateLimiter } from "../../src/runtime/limits/rate-limit.js";
import { RedisRateLimiter } from "../../src/runtime/shared/redis-limiter.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { RedisServer } from "../support/redis.js";

let server: RedisServer;
let redis: RedisConnection;
const lines: string[] = [];
const log = (line: string): void => {
  lines.push(line);
};

beforeAll(async () => {
  server = await RedisServer.start();
  redis = await connectRedis({ url: server.url, log, commandTimeoutMs: 500 });
});
afterAll(async () => {
  await redis?.close();
  await server?.stop();
});

/** The seeded generator the in-memory property test uses (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("RedisRateLimiter: the sliding log, in Redis", () => {
  it("answers every random arrival as the in-memory limiter does, so no window holds more than N", async () => {
    let arrivalsChecked = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const next = random(seed);
      const requests = 1 + Math.floor(next() * 6);
      const windowMs = 1 + Math.floor(next() * 1000);
      const keys = [{ key: `property:${seed}`, limit: { requests, windowSeconds: windowMs / 1000 } }];
      const memory = new RateLimiter();
      const shared = new RedisRateLimiter({ redis, log });
      const admitted: number[] = [];
      // Times far from 0, as the server's clock in µs would be: the script must keep every digit.
      let now = 1_700_000_000_000;
      const arrivals = 50 + Math.floor(next() * 200);
      for (let i = 0; i < arrivals; i++) {
        const kind = next();
        now +=
          kind < 0.3
            ? 0
            : kind < 0.9
              ? Math.floor(next() * (windowMs / requests) * 2)
              : Math.floor(next() * windowMs * 3);
        const want = memory.tryAcquire({ keys, now });
        const got = await shared.acquire({ keys, now });
        expect(got, `seed ${seed}, arrival ${i} at ${now}`).toEqual(want);
        if (got.ok) admitted.push(now);
        arrivalsChecked++;
      }
      for (const start of admitted)
        expect(admitted.filter((t) => t >= start && t < start + windowMs).length).toBeLessThanOrEqual(requests);
    }
    expect(arrivalsChecked).toBeGreaterThan(10_000);
  });

  it("counts a request against every key or none, and names the key with the longest wait", async () => {
    const limiter = new RedisRateLimiter({ redis, log });
    const tool = { key: "tool:atomic", limit: { requests: 1, windowSeconds: 10 } };
    const source = { key: "source:atomic", limit: { requests: 2, windowSeconds: 1 } };
    expect(await limiter.acquire({ keys: [tool, source], now: 0 })).toEqual({ ok: true });
    expect(await limiter.acquire({ keys: [tool, source], now: 100 })).toEqual({
      ok: false,
      retryAfterMs: 9_900,
      key: "tool:atomic",
    });
    // The refusal took nothing from the source: it still has its second place.
    expect(await limiter.acquire({ keys: [source], now: 200 })).toEqual({ ok: true });
    expect(await limiter.acquire({ keys: [source], now: 300 })).toEqual({
      ok: false,
      retryAfterMs: 700,
      key: "source:atomic",
    });
  });

  it("keeps its keys under openapi-mcp:rl: and lets them expire after the window", async () => {
    const limiter = new RedisRateLimiter({ redis, log });
    await limiter.acquire({ keys: [{ key: "tool:expiring", limit: { requests: 3, windowSeconds: 2 } }] });
    const ttl = Number(await redis.sendCommand(["PTTL", "openapi-mcp:rl:tool:expiring"]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
  });

  it("uses the Redis server's clock when no time is given", async () => {
    const limiter = new RedisRateLimiter({ redis, log });
    const keys = [{ key: "tool:clock", limit: { requests: 1, windowSeconds: 60 } }];
    expect(await limiter.acquire({ keys })).toEqual({ ok: true });
    const refused = await limiter.acquire({ keys });
    expect(refused.ok).toBe(false);
    if (!refused.ok && "retryAfterMs" in refused) expect(refused.retryAfterMs).toBeGreaterThan(59_000);
  });
});

describe("RedisRateLimiter: a place counts from when its request leaves", () => {
  const key = (name: string) => [{ key: `tool:${name}`, limit: { requests: 1, windowSeconds: 60 } }];
  /** The key's one entry's score, in ms (RESP3 answers pairs: [[member, score]]). */
  const score = async (name: string): Promise<number> => {
    const reply = await redis.sendCommand(["ZRANGE", `openapi-mcp:rl:tool:${name}`, "0", "0", "WITHSCORES"]);
    const [[, value]] = reply as [[string, number | string]];
    return Number(value) / 1000;
  };

  it("holds the place provisionally (PENDING_MS ahead) until the request leaves, then stamps it then", async () => {
    const limiter = new RedisRateLimiter({ redis, log });
    const before = Date.now();
    const held = await limiter.reserve({ keys: key("held") });
    if (!held.ok) throw new Error("refused");
    expect(await score("held")).toBeGreaterThan(before + PENDING_MS - 1_000);
    const refused = await limiter.reserve({ keys: key("held") });
    // Not left yet: a whole window to wait, as it may leave at any moment.
    expect(refused).toEqual({ ok: false, retryAfterMs: 60_000, key: "tool:held" });
    held.permit.sent();
    await expect.poll(() => score("held")).toBeLessThan(Date.now() + 1_000);
    expect(await score("held")).toBeGreaterThanOrEqual(before - 1_000);
    expect((await limiter.reserve({ keys: key("held") })).ok).toBe(false);
  });

  it("gives back the place of a request that never leaves", async () => {
    const limiter = new RedisRateLimiter({ redis, log });
    const held = await limiter.reserve({ keys: key("released") });
    if (!held.ok) throw new Error("refused");
    held.permit.release();
    await expect.poll(async () => (await limiter.reserve({ keys: key("released") })).ok).toBe(true);
  });

  it("keeps a key with a place held for as long as the place can count", async () => {
    const limiter = new RedisRateLimiter({ redis, log });
    await limiter.reserve({ keys: [{ key: "tool:short", limit: { requests: 3, windowSeconds: 1 } }] });
    const ttl = Number(await redis.sendCommand(["PTTL", "openapi-mcp:rl:tool:short"]));
    expect(ttl).toBeGreaterThan(PENDING_MS);
    expect(ttl).toBeLessThanOrEqual(PENDING_MS + 1_000);
  });
});

describe("RedisRateLimiter: Redis lost while serving", () => {
  it("fails closed at once while Redis is down, and recovers when it returns", async () => {
    const connection = await connectRedis({ url: server.url, log, commandTimeoutMs: 500 });
    const limiter = new RedisRateLimiter({ redis: connection, log });
    const keys = [{ key: "tool:outage", limit: { requests: 1000, windowSeconds: 1 } }];
    try {
      expect(await limiter.acquire({ keys })).toEqual({ ok: true });
      await server.stop();
      const started = Date.now();
      const during = await limiter.acquire({ keys });
      expect(during).toEqual({ ok: false, unavailable: expect.stringContaining("Redis unreachable") });
      // Well under a second: a caller is told at once, not after a hang.
      expect(Date.now() - started).toBeLessThan(1_000);
      await server.resume();
      await expect.poll(async () => (await limiter.acquire({ keys })).ok, { timeout: 10_000 }).toBe(true);
      expect(lines.some((line) => line.includes("unreachable") && line.includes("reconnecting"))).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it("fails closed within the command timeout when Redis stops answering, and recovers when it answers again", async () => {
    const connection = await connectRedis({ url: server.url, log, commandTimeoutMs: 300 });
    const limiter = new RedisRateLimiter({ redis: connection, log });
    const keys = [{ key: "tool:frozen", limit: { requests: 1000, windowSeconds: 1 } }];
    try {
      expect(await limiter.acquire({ keys })).toEqual({ ok: true });
      server.freeze();
      const started = Date.now();
      expect(await limiter.acquire({ keys })).toEqual({
        ok: false,
        unavailable: expect.stringContaining("Redis unreachable"),
      });
      // Bounded by the command timeout, not hanging until the connection gives up.
      expect(Date.now() - started).toBeLessThan(2_000);
      server.thaw();
      await expect.poll(async () => (await limiter.acquire({ keys })).ok, { timeout: 10_000 }).toBe(true);
    } finally {
      server.thaw();
      await connection.close();
    }
  });

  it("fails open when told, warning once per outage", async () => {
    const connection = await connectRedis({ url: server.url, log, commandTimeoutMs: 500 });
    const warnings: string[] = [];
    const limiter = new RedisRateLimiter({ redis: connection, log: (line) => warnings.push(line), failOpen: true });
    const keys = [{ key: "tool:open", limit: { requests: 1, windowSeconds: 60 } }];
    try {
      await server.stop();
      for (let i = 0; i < 5; i++) expect(await limiter.acquire({ keys })).toEqual({ ok: true });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^WARNING --state-fail open: the shared rate limit cannot be checked/);
    } finally {
      await server.resume();
      await connection.close();
    }
  });
});
