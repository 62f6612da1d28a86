// Two engines ("replicas") counting one tool's rate limit in one real Redis, calling a real loopback upstream:
// thousands of concurrent calls, and no window at the upstream over N (while two in-memory limiters, one per
// replica, let twice as many through). Redis lost mid-run: rate-limited calls fail closed and send nothing, other
// tools keep answering, and calls are admitted again once Redis returns; --state-fail open sends and warns.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import type { Catalog } from "../../src/catalog/types.js";
import { Engine } from "../../src/runtime/engine.js";
import { type Limiter, RateLimiter } from "../../src/runtime/rate-limit.js";
import { RedisRateLimiter } from "../../src/runtime/state/redis-limiter.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/state/redis.js";
import { RedisServer } from "../support/redis.js";
import { json, Upstream } from "../support/upstream.js";

const LIMIT = { requests: 20, windowSeconds: 0.5 };
const WINDOW_MS = LIMIT.windowSeconds * 1000;

let server: RedisServer;
let api: Upstream;
let catalog: Catalog;
const connections: RedisConnection[] = [];
/** When each call of /items reached the upstream (ms, this process's monotonic clock). */
const arrived: number[] = [];

beforeAll(async () => {
  server = await RedisServer.start();
  api = await Upstream.start();
  api.on("GET", "/items", (context) => {
    arrived.push(performance.now());
    return json({ items: [] })(context);
  });
  api.on("GET", "/health", json({ ok: true }));
  catalog = await loadCatalog({
    name: "replicas",
    document: {
      openapi: "3.0.3",
      info: { title: "Replicas", version: "1" },
      servers: [{ url: api.url }],
      paths: {
        "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } },
        "/health": { get: { operationId: "health", responses: { "200": { description: "ok" } } } },
      },
    },
  });
});
afterAll(async () => {
  for (const connection of connections) await connection.close();
  await api?.close();
  await server?.stop();
});

async function connection(): Promise<RedisConnection> {
  const made = await connectRedis({ url: server.url, log: () => {}, commandTimeoutMs: 500 });
  connections.push(made);
  return made;
}

function replica(limiter: Limiter): Engine {
  const tool = catalog.tools.find((t) => t.origin.operationId === "listItems")!;
  return new Engine({ catalog, env: {}, limiter, rateLimits: { tools: { [tool.name]: LIMIT } } });
}

function toolName(operationId: string): string {
  return catalog.tools.find((t) => t.origin.operationId === operationId)!.name;
}

/**
 * 2,000 calls from 50 concurrent callers spread over the replicas, each caller pausing a little after a refusal
 * (as a client honouring the wait would), so the run spans several windows. Returns the busiest window at the
 * upstream: arrival times there, in windows of W less 100 ms, since a call admitted at the end of a window (on
 * Redis's clock) may arrive a moment later, next to the following window's first calls (loopback jitter on a busy
 * 2-core machine, measured up to ~40 ms).
 */
async function drive(replicas: Engine[]): Promise<{ sent: number; busiest: number; admitted: number }> {
  const from = arrived.length;
  let next = 0;
  let admitted = 0;
  const name = toolName("listItems");
  await Promise.all(
    Array.from({ length: 50 }, async (_, caller) => {
      while (next < 2_000) {
        next++;
        const result = await replicas[caller % replicas.length]!.callTool(name, {});
        if (result.isError) await new Promise((resolve) => setTimeout(resolve, 40));
        else admitted++;
      }
    }),
  );
  const times = arrived.slice(from).sort((a, b) => a - b);
  let busiest = 0;
  for (const [i, start] of times.entries()) {
    let count = 0;
    for (let j = i; j < times.length && times[j]! < start + WINDOW_MS - 100; j++) count++;
    busiest = Math.max(busiest, count);
  }
  return { sent: times.length, busiest, admitted };
}

describe("two replicas sharing their rate limit in Redis", () => {
  it("never let more than N through in any window, where one memory each lets twice as many", async () => {
    const shared = await drive([
      replica(new RedisRateLimiter({ redis: await connection(), log: () => {} })),
      replica(new RedisRateLimiter({ redis: await connection(), log: () => {} })),
    ]);
    expect(shared.sent).toBe(shared.admitted);
    expect(shared.admitted).toBeGreaterThan(LIMIT.requests);
    expect(shared.busiest).toBeLessThanOrEqual(LIMIT.requests);

    const apart = await drive([replica(new RateLimiter()), replica(new RateLimiter())]);
    expect(apart.busiest).toBeGreaterThan(LIMIT.requests);
  });
});

describe("Redis lost while serving", () => {
  it("fails closed: nothing sent, a clear result, other tools still answer; recovers when Redis returns", async () => {
    const engine = replica(new RedisRateLimiter({ redis: await connection(), log: () => {} }));
    const limited = toolName("listItems");
    expect((await engine.callTool(limited, {})).isError).toBeFalsy();
    await server.stop();
    const before = api.to("/items").length;
    const refused = await engine.callTool(limited, {});
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain(
      "the shared rate limit cannot be checked (Redis unreachable); nothing was sent",
    );
    expect(api.to("/items").length).toBe(before);
    // A tool without a limit needs no Redis.
    expect((await engine.callTool(toolName("health"), {})).isError).toBeFalsy();
    await server.resume();
    await expect
      .poll(async () => (await engine.callTool(limited, {})).isError ?? false, { timeout: 10_000 })
      .toBe(false);
    expect(api.to("/items").length).toBe(before + 1);
  });

  it("fails open when told: sends, and warns", async () => {
    const warnings: string[] = [];
    const limiter = new RedisRateLimiter({
      redis: await connection(),
      log: (line) => warnings.push(line),
      failOpen: true,
    });
    const engine = replica(limiter);
    await server.stop();
    try {
      const before = api.to("/items").length;
      expect((await engine.callTool(toolName("listItems"), {})).isError).toBeFalsy();
      expect(api.to("/items").length).toBe(before + 1);
      expect(warnings.join("\n")).toContain("WARNING --state-fail open");
    } finally {
      await server.resume();
    }
  });
});
