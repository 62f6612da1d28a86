// Two engines ("replicas") counting one tool's rate limit in one real Redis, calling a real loopback upstream:
// thousands of concurrent calls, and no window at the upstream over N (while two in-memory limiters, one per
// replica, let twice as many through). The upstream stamps arrivals in a thread of its own and each call's own start
// is its slack (test/support/windows.ts): a fixed 100 ms slack with arrivals stamped on this thread saw 35 of N=20
// "within a window" under load, with the limit holding. Redis lost mid-run: rate-limited calls fail closed and send
// nothing, other tools keep answering, and calls are admitted again once Redis returns; --state-fail open sends and
// warns.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import type { Catalog } from "../../src/catalog/types.js";
import { Engine } from "../../src/runtime/engine.js";
import { type Limiter, RateLimiter } from "../../src/runtime/limits/rate-limit.js";
import { RedisRateLimiter } from "../../src/runtime/shared/redis-limiter.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { RecordingUpstream } from "../support/recording-upstream.js";
import { RedisServer } from "../support/redis.js";
import { json, Upstream } from "../support/upstream.js";
import { shortestWindow } from "../support/windows.js";

const LIMIT = { requests: 20, windowSeconds: 0.5 };
const WINDOW_MS = LIMIT.windowSeconds * 1000;

let server: RedisServer;
let api: Upstream;
/** Answers /items and stamps its arrivals off this thread; /health goes on to `api`. */
let recorder: RecordingUpstream;
let catalog: Catalog;
const connections: RedisConnection[] = [];

beforeAll(async () => {
  server = await RedisServer.start();
  api = await Upstream.start();
  api.on("GET", "/health", json({ ok: true }));
  recorder = await RecordingUpstream.start({
    routes: [{ method: "GET", path: "/items", body: { items: [] } }],
    fallback: api.url,
  });
  const call = [{ name: "call", in: "query" as const, schema: { type: "string" as const } }];
  catalog = await loadCatalog({
    name: "replicas",
    document: {
      openapi: "3.0.3",
      info: { title: "Replicas", version: "1" },
      servers: [{ url: recorder.url }],
      paths: {
        "/items": {
          get: { operationId: "listItems", parameters: call, responses: { "200": { description: "ok" } } },
        },
        "/health": { get: { operationId: "health", responses: { "200": { description: "ok" } } } },
      },
    },
  });
});
afterAll(async () => {
  for (const connection of connections) await connection.close();
  await recorder?.close();
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

/** Every call of /items the upstream has received. */
async function sent(): Promise<number> {
  await recorder.settled();
  return recorder.arrivals.filter((a) => a.path === "/items").length;
}

/**
 * 2,000 calls from 50 concurrent callers spread over the replicas, each caller pausing a little after a refusal
 * (as a client honouring the wait would), so the run spans several windows. Returns the shortest time from the
 * earliest of N+1 calls being made to the last of them arriving (at least W when the limit held).
 */
async function drive(replicas: Engine[]): Promise<{ sent: number; shortest: number; admitted: number }> {
  await recorder.settled();
  const from = recorder.arrivals.length;
  const calls: Array<{ start: number }> = [];
  let admitted = 0;
  const name = toolName("listItems");
  await Promise.all(
    Array.from({ length: 50 }, async (_, caller) => {
      while (calls.length < 2_000) {
        const index = calls.length;
        calls[index] = { start: performance.now() };
        const result = await replicas[caller % replicas.length]!.callTool(name, { call: String(index) });
        if (result.isError) await new Promise((resolve) => setTimeout(resolve, 40));
        else admitted++;
      }
    }),
  );
  await recorder.settled();
  const arrivals = recorder.arrivals.slice(from);
  return { sent: arrivals.length, shortest: shortestWindow({ arrivals, calls, n: LIMIT.requests }), admitted };
}

describe("two replicas sharing their rate limit in Redis", () => {
  it("never let more than N through in any window, where one memory each lets twice as many", async () => {
    const shared = await drive([
      replica(new RedisRateLimiter({ redis: await connection(), log: () => {} })),
      replica(new RedisRateLimiter({ redis: await connection(), log: () => {} })),
    ]);
    expect(shared.sent).toBe(shared.admitted);
    expect(shared.admitted).toBeGreaterThan(LIMIT.requests);
    expect(shared.shortest).toBeGreaterThanOrEqual(WINDOW_MS);

    const apart = await drive([replica(new RateLimiter()), replica(new RateLimiter())]);
    console.log(
      `N+1 arrivals, from the first call made (W ${WINDOW_MS} ms): shared ${shared.shortest.toFixed(0)} ms (${shared.sent} sent), apart ${apart.shortest.toFixed(0)} ms (${apart.sent} sent)`,
    );
    expect(apart.shortest).toBeLessThan(WINDOW_MS);
  });
});

describe("Redis lost while serving", () => {
  it("fails closed: nothing sent, a clear result, other tools still answer; recovers when Redis returns", async () => {
    const engine = replica(new RedisRateLimiter({ redis: await connection(), log: () => {} }));
    const limited = toolName("listItems");
    expect((await engine.callTool(limited, {})).isError).toBeFalsy();
    await server.stop();
    const before = await sent();
    const refused = await engine.callTool(limited, {});
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain(
      "the shared rate limit cannot be checked (Redis unreachable); nothing was sent",
    );
    expect(await sent()).toBe(before);
    // A tool without a limit needs no Redis.
    expect((await engine.callTool(toolName("health"), {})).isError).toBeFalsy();
    await server.resume();
    await expect
      .poll(async () => (await engine.callTool(limited, {})).isError ?? false, { timeout: 10_000 })
      .toBe(false);
    expect(await sent()).toBe(before + 1);
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
      const before = await sent();
      expect((await engine.callTool(toolName("listItems"), {})).isError).toBeFalsy();
      expect(await sent()).toBe(before + 1);
      expect(warnings.join("\n")).toContain("WARNING --state-fail open");
    } finally {
      await server.resume();
    }
  });
});
