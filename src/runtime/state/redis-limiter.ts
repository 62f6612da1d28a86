// The sliding-log rate limit (../rate-limit.ts) kept in Redis, so that N per window holds across every replica.
// One server-side script checks every key and records the request in all of them or in none; Redis runs scripts
// one at a time, so no two replicas can both take the last place. Times come from the Redis server's clock (TIME),
// not from the replicas', whose clocks may disagree. Each key is a sorted set of admitted request times (µs), with
// an expiry of one window so that idle keys vanish. A key naming a caller (a profile's budget) is a keyed digest
// (HMAC under a key derived from --state-secret: sealed.ts), so Redis shows no principal, nor a digest of one that a
// guess could be checked against; without a secret such a key is refused (serve refuses at start).

import { createHash, randomUUID } from "node:crypto";
import { type Acquired, checkLimit, type Limiter, type RateLimitKey } from "../rate-limit.js";
import type { RedisConnection } from "./redis.js";
import type { Sealer } from "./sealed.js";

export const RATE_LIMIT_PREFIX = "openapi-mcp:rl:";

// KEYS: the limits' keys. ARGV: this request's id, a time in µs ("" for the server's clock), then requests and the
// window in µs for each key. Returns {1}, or {0, wait µs, index of the key with the longest wait}. Large times are
// formatted with %d: Lua's default number format keeps only 14 digits. The expiry (the newest entry's window, on
// the server's clock) is set only on the server's clock: a replayed time is not on it.
const SCRIPT = `
local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[2])
end
local worst, worstKey = 0, 0
for i, key in ipairs(KEYS) do
  local requests = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - window))
  local count = redis.call('ZCARD', key)
  if count >= requests then
    local oldest = redis.call('ZRANGE', key, count - requests, count - requests, 'WITHSCORES')
    local wait = tonumber(oldest[2]) + window - now
    if wait > worst then worst, worstKey = wait, i end
  end
end
if worstKey > 0 then return {0, worst, worstKey} end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, string.format('%d', now), ARGV[1])
  if ARGV[2] == '' then redis.call('PEXPIRE', key, math.ceil(tonumber(ARGV[2 + 2 * i]) / 1000)) end
end
return {1}
`;
const SHA = createHash("sha1").update(SCRIPT).digest("hex");

export const UNAVAILABLE = "the shared rate limit cannot be checked (Redis unreachable)";
const UNNAMED =
  "this caller's budget cannot be counted in the shared state: its key would name the caller in Redis, and there is no --state-secret (MCP_STATE_SECRET) to name it by a keyed digest";

export class RedisRateLimiter implements Limiter {
  private readonly redis: RedisConnection;
  private readonly failOpen: boolean;
  private readonly log: (line: string) => void;
  /** Names keys that name a caller; absent without a state secret. */
  private readonly names: Sealer | undefined;
  /** Unique per request: replica + counter (a sorted set keeps one entry per member). */
  private readonly replica = randomUUID();
  private counter = 0;
  private warned = false;

  constructor({
    redis,
    failOpen = false,
    log,
    names,
  }: { redis: RedisConnection; failOpen?: boolean; log: (line: string) => void; names?: Sealer }) {
    this.redis = redis;
    this.failOpen = failOpen;
    this.log = log;
    this.names = names;
  }

  /** As `RateLimiter.tryAcquire`; `now` (ms) replaces the Redis server's clock, for tests that replay arrivals. */
  async acquire({ keys, now }: { keys: readonly RateLimitKey[]; now?: number }): Promise<Acquired> {
    const distinct = new Map<string, RateLimitKey>();
    for (const entry of keys) {
      checkLimit(entry.key, entry.limit);
      if (!distinct.has(entry.key)) distinct.set(entry.key, entry);
    }
    if (distinct.size === 0) return { ok: true };
    const names = [...distinct.keys()];
    const redisKeys: string[] = [];
    for (const { key, namesCaller } of distinct.values()) {
      if (!namesCaller) redisKeys.push(RATE_LIMIT_PREFIX + key);
      else if (this.names) redisKeys.push(this.names.name({ prefix: `${RATE_LIMIT_PREFIX}caller:`, parts: key }));
      else return { ok: false, unavailable: UNNAMED };
    }
    const args = [`${this.replica}:${this.counter++}`, now === undefined ? "" : String(Math.round(now * 1000))];
    for (const { limit } of distinct.values())
      args.push(String(limit.requests), String(Math.round(limit.windowSeconds * 1e6)));
    let reply: unknown;
    try {
      reply = await this.run(redisKeys, args);
    } catch (error) {
      if (!this.failOpen) return { ok: false, unavailable: UNAVAILABLE };
      if (!this.warned)
        this.log(
          `WARNING --state-fail open: ${UNAVAILABLE}; rate-limited calls are sent unchecked until it returns (${error instanceof Error ? error.message : String(error)})`,
        );
      this.warned = true;
      return { ok: true };
    }
    this.warned = false;
    const [admitted, waitUs, index] = reply as [number, number?, number?];
    if (admitted === 1) return { ok: true };
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil((waitUs ?? 0) / 1000)), key: names[(index ?? 1) - 1]! };
  }

  /** EVALSHA, loading the script with EVAL the first time a Redis server has not seen it (or after a restart). */
  private async run(keys: string[], args: string[]): Promise<unknown> {
    const count = String(keys.length);
    try {
      return await this.redis.sendCommand(["EVALSHA", SHA, count, ...keys, ...args]);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
      return await this.redis.sendCommand(["EVAL", SCRIPT, count, ...keys, ...args]);
    }
  }
}
