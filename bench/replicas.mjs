// bench/replicas: what the shared rate limit costs per call. The added time per admission with the limit in Redis
// (one EVALSHA on loopback, node-redis, to reserve a place; the re-stamp when the request leaves is a second one,
// not waited for, counted in the throughput) against the in-memory sliding log, one at a time (p50, p99), and ones
// per second with 16 in flight (what one replica's calls can get through one Redis connection); the same for the
// shared OAuth token cache on a hit (one GET and an AES-GCM open) against the in-process cache. Then calls per second
// through a round-robin balancer to 1 and to 3 replicas, the same client load, with the CPU per call of each part
// (./replicas-throughput.mjs). Starts its own redis-server on a free loopback port (Debian package redis-server).
//   npm run build --silent && node bench/replicas.mjs [--acquires 20000] [--calls 5000]

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RateLimiter } from "../dist/runtime/limits/rate-limit.js";
import { connectRedis } from "../dist/runtime/shared/redis.js";
import { RedisRateLimiter } from "../dist/runtime/shared/redis-limiter.js";
import { createServer as createHttpServer } from "node:http";
import { TokenProvider } from "../dist/runtime/credentials/oauth.js";
import { Sealer } from "../dist/runtime/shared/sealed.js";
import { SharedTokenProvider } from "../dist/runtime/shared/shared-tokens.js";
import { throughput, upstreamAndSpec } from "./replicas-throughput.mjs";

const { values } = parseArgs({
  options: { acquires: { type: "string", default: "20000" }, calls: { type: "string", default: "5000" } },
});
const ACQUIRES = Number(values.acquires);
const CALLS = Number(values.calls);
// A tool limit and its source's, as a call of a limited tool counts against; high enough that all are admitted.
const KEYS = [
  { key: "tool:bench", limit: { requests: 1_000_000, windowSeconds: 1 } },
  { key: "source:bench", limit: { requests: 1_000_000, windowSeconds: 1 } },
];

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const redisServer = spawn(
  "redis-server",
  ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  {
    stdio: "ignore",
  },
);
redisServer.on("error", (error) => {
  console.error(`redis-server: ${error.message} (install the Debian package redis-server)`);
  process.exit(1);
});
let redis;
for (let tries = 0; !redis; tries++) {
  try {
    redis = await connectRedis({ url: `redis://127.0.0.1:${port}`, log: () => {} });
  } catch (error) {
    if (tries > 100) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A call's admission as the engine makes it: a place reserved, then its request leaves (the place re-stamped). */
async function admit(limiter) {
  const got = await limiter.reserve({ keys: KEYS });
  if (got.ok) got.permit.sent();
  return got;
}

/** Per-admission times (ms), one at a time, after a warm-up. */
async function sequential(limiter) {
  for (let i = 0; i < 2_000; i++) await admit(limiter);
  const times = new Float64Array(ACQUIRES);
  for (let i = 0; i < ACQUIRES; i++) {
    const start = performance.now();
    const got = await admit(limiter);
    times[i] = performance.now() - start;
    if (!got.ok) throw new Error(`refused: ${JSON.stringify(got)}`);
  }
  times.sort();
  return { p50: times[Math.floor(ACQUIRES / 2)], p99: times[Math.floor(ACQUIRES * 0.99)] };
}

/** Acquires per second with `inFlight` at a time. */
async function concurrent(limiter, inFlight) {
  let left = ACQUIRES;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await admit(limiter);
    }),
  );
  return ACQUIRES / ((performance.now() - start) / 1000);
}

const memory = new RateLimiter();
const shared = new RedisRateLimiter({ redis, log: () => {} });
const rounds = [];
for (let round = 0; round < 3; round++)
  rounds.push({
    memory: await sequential(memory),
    redis: await sequential(shared),
    perSecond: await concurrent(shared, 16),
  });

// The shared OAuth token cache on a hit (one GET and an AES-GCM open) against the in-process cache: the token
// endpoint is asked once, before the timing.
const tokenEndpoint = createHttpServer((_, res) =>
  res.writeHead(200, { "content-type": "application/json" }).end('{"access_token":"bench-token","expires_in":3600}'),
);
await new Promise((resolve) => tokenEndpoint.listen(0, "127.0.0.1", resolve));
const credentials = {
  tokenUrl: `http://127.0.0.1:${tokenEndpoint.address().port}/token`,
  clientId: "bench",
  clientSecret: "bench-secret",
  scopes: [],
};
const sealer = new Sealer({
  secrets: ["bench-state-secret-0123456789abcdef"],
  purpose: "oauth token cache",
  source: "bench",
});
const tokenSources = { memory: new TokenProvider(), redis: new SharedTokenProvider({ redis, sealer, log: () => {} }) };
const tokenRounds = [];
for (let round = 0; round < 3; round++) {
  const times = {};
  for (const [name, source] of Object.entries(tokenSources))
    times[name] = await sequential({
      reserve: async () => {
        await source.token(credentials);
        return { ok: true, permit: { sent: () => {} } };
      },
    });
  tokenRounds.push(times);
}
tokenEndpoint.close();
await redis.close();

// Throughput: 1 and 3 replicas in turn, three rounds each, against the same Redis. The load average says how much
// of the 2 cores other work took meanwhile.
const loadBefore = loadavg()[0];
const dir = mkdtempSync(join(tmpdir(), "bench-replicas-"));
const upstream = await upstreamAndSpec(dir);
const byCount = { 1: [], 3: [] };
for (let round = 0; round < 3; round++)
  for (const replicas of [1, 3])
    byCount[replicas].push(
      await throughput({
        spec: upstream.spec,
        redisUrl: `redis://127.0.0.1:${port}`,
        redisPid: redisServer.pid,
        replicas,
        calls: CALLS,
      }),
    );
const loadAfter = loadavg()[0];
await upstream.close();
rmSync(dir, { recursive: true, force: true });
redisServer.kill();

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const memoryP50 = median(rounds.map((r) => r.memory.p50));
const redisP50 = median(rounds.map((r) => r.redis.p50));
const redisP99 = median(rounds.map((r) => r.redis.p99));
const perSecond = median(rounds.map((r) => r.perSecond));
const ms = (value) => `${value.toFixed(3)} ms`;
console.log(`acquires per round: ${ACQUIRES}, 2 keys each (tool + source), medians of ${rounds.length} rounds`);
console.log(`in memory: p50 ${ms(memoryP50)}`);
console.log(`Redis (loopback): p50 ${ms(redisP50)}, p99 ${ms(redisP99)}`);
console.log(`added p50 per limited call: ${ms(redisP50 - memoryP50)} (target ≤ 0.3 ms)`);
console.log(`Redis acquires/s, 16 in flight on one connection: ${Math.round(perSecond).toLocaleString("en")}`);
const tokenMemory = median(tokenRounds.map((r) => r.memory.p50));
const tokenRedis = median(tokenRounds.map((r) => r.redis.p50));
console.log(
  `OAuth token, cache hit: in memory p50 ${ms(tokenMemory)}; shared in Redis p50 ${ms(tokenRedis)}, p99 ${ms(median(tokenRounds.map((r) => r.redis.p99)))}; added ${ms(tokenRedis - tokenMemory)} per call`,
);

console.log(
  `\nthroughput through a round-robin balancer, 50 stateless clients, ${CALLS} calls a round after 1,000 per replica, medians of 3 rounds (load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after):`,
);
for (const [replicas, rounds] of Object.entries(byCount)) {
  const cpu = (part) => median(rounds.map((r) => r.cpuPerCall[part])).toFixed(2);
  const total = median(rounds.map((r) => r.cpuPerCall.replicas + r.cpuPerCall.redis + r.cpuPerCall.clients));
  console.log(
    `  ${replicas} replica${replicas === "1" ? "" : "s"}: ${Math.round(median(rounds.map((r) => r.perSecond)))} calls/s; CPU ms per call: replicas ${cpu("replicas")}, Redis ${cpu("redis")}, clients+balancer+upstream ${cpu("clients")}, all ${total.toFixed(2)} (ceiling on 2 cores ≈ ${Math.round(2000 / total)} calls/s)`,
  );
}
