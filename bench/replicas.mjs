// bench/replicas: what the shared rate limit costs per call. The added time per acquire with the limit in Redis
// (one EVALSHA on loopback, node-redis) against the in-memory sliding log, one at a time (p50, p99), and acquires
// per second with 16 in flight (what one replica's calls can get through one Redis connection); and the same for
// the shared OAuth token cache on a hit (one GET and an AES-GCM open) against the in-process cache. Starts its own
// redis-server on a free loopback port (Debian package redis-server).
//   npm run build --silent && node bench/replicas.mjs [--acquires 20000]

import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { parseArgs } from "node:util";
import { RateLimiter } from "../dist/runtime/rate-limit.js";
import { connectRedis } from "../dist/runtime/state/redis.js";
import { RedisRateLimiter } from "../dist/runtime/state/redis-limiter.js";
import { createServer as createHttpServer } from "node:http";
import { TokenProvider } from "../dist/runtime/oauth.js";
import { Sealer } from "../dist/runtime/state/sealed.js";
import { SharedTokenProvider } from "../dist/runtime/state/shared-tokens.js";

const { values } = parseArgs({ options: { acquires: { type: "string", default: "20000" } } });
const ACQUIRES = Number(values.acquires);
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

/** Per-acquire times (ms), one at a time, after a warm-up. */
async function sequential(limiter) {
  for (let i = 0; i < 2_000; i++) await limiter.acquire({ keys: KEYS });
  const times = new Float64Array(ACQUIRES);
  for (let i = 0; i < ACQUIRES; i++) {
    const start = performance.now();
    const got = await limiter.acquire({ keys: KEYS });
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
      while (left-- > 0) await limiter.acquire({ keys: KEYS });
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
      acquire: async () => {
        await source.token(credentials);
        return { ok: true };
      },
    });
  tokenRounds.push(times);
}
tokenEndpoint.close();
await redis.close();
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
