// The sliding-log rate limit (../limits/rate-limit.ts) kept in Redis, so that N per window holds across every replica.
// One server-side script checks every key and records the request in all of them or in none; Redis runs scripts
// one at a time, so no two replicas can both take the last place. Times come from the Redis server's clock (TIME),
// not from the replicas', whose clocks may disagree. Each key is a sorted set of admitted requests (µs), scored
// provisionally (admission + PENDING_MS) until the request leaves, then re-stamped by the same script (`stamp`),
// or removed if it never leaves (`release`); a key expires PENDING_MS and a window after its last admission (every
// entry's score is at most that admission's provisional one; never shortened), so idle keys vanish. A key naming a
// caller (a profile's budget) is a keyed digest (HMAC under a key derived from --state-secret: sealed.ts), so Redis
// shows no principal, nor a digest of one that a guess could be checked against; without a secret such a key is
// refused (serve refuses at start).

import { createHash, randomUUID } from "node:crypto";
import {
  type Acquired,
  checkLimit,
  FREE_PERMIT,
  type Limiter,
  PENDING_MS,
  type Permit,
  type RateLimitKey,
  type Reserved,
} from "../limits/rate-limit.js";
import type { RedisConnection } from "./redis.js";
import type { Sealer } from "./sealed.js";

export const RATE_LIMIT_PREFIX = "openapi-mcp:rl:";

// KEYS: the limits' keys. ARGV: the operation (reserve, stamp, release), this request's id, a time in µs ("" for
// the server's clock), and for reserve the provisional lead in µs (0: sent now), then requests and the window in
// µs for each key. reserve returns {1}, or {0, wait µs, index of the key with the longest wait}; an entry not yet
// sent makes room a window after it is, so its wait counts from now. Large times are formatted with %d: Lua's
// default number format keeps only 14 digits. Expiry is set only on the server's clock: a replayed time is not on it.
const SCRIPT = `
local op, member = ARGV[1], ARGV[2]
local now
if ARGV[3] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[3])
end
if op == 'stamp' then
  for _, key in ipairs(KEYS) do redis.call('ZADD', key, 'XX', string.format('%d', now), member) end
  return {1}
end
if op == 'release' then
  for _, key in ipairs(KEYS) do redis.call('ZREM', key, member) end
  return {1}
end
local lead = tonumber(ARGV[4])
local worst, worstKey = 0, 0
for i, key in ipairs(KEYS) do
  local requests = tonumber(ARGV[3 + 2 * i])
  local window = tonumber(ARGV[4 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - window))
  local count = redis.call('ZCARD', key)
  if count >= requests then
    local oldest = redis.call('ZRANGE', key, count - requests, count - requests, 'WITHSCORES')
    local wait = math.min(tonumber(oldest[2]), now) + window - now
    if wait > worst then worst, worstKey = wait, i end
  end
end
if worstKey > 0 then return {0, worst, worstKey} end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, string.format('%d', now + lead), member)
  if ARGV[3] == '' then
    local ttl = math.ceil((lead + tonumber(ARGV[4 + 2 * i])) / 1000)
    if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
  end
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

  /** As `RateLimiter.reserveNow`: admitted provisionally, re-stamped by the permit when the request leaves. */
  async reserve({ keys }: { keys: readonly RateLimitKey[] }): Promise<Reserved> {
    // P is timed from before asking: the admission's time on Redis's clock is after this.
    const asked = performance.now();
    const member = `${this.replica}:${this.counter++}`;
    const decided = await this.decide({ keys, member, now: undefined, leadMs: PENDING_MS });
    if (!decided.ok) return decided;
    if (decided.free) return { ok: true, permit: FREE_PERMIT };
    return { ok: true, permit: this.permit({ keys: decided.redisKeys, member, asked }) };
  }

  /** A request admitted and sent at once (replayed arrivals, tests); `now` (ms) replaces the Redis server's clock. */
  async acquire({ keys, now }: { keys: readonly RateLimitKey[]; now?: number }): Promise<Acquired> {
    const member = `${this.replica}:${this.counter++}`;
    const decided = await this.decide({ keys, member, now, leadMs: 0 });
    return decided.ok ? { ok: true } : decided;
  }

  private async decide({
    keys,
    member,
    now,
    leadMs,
  }: {
    keys: readonly RateLimitKey[];
    member: string;
    now: number | undefined;
    leadMs: number;
  }): Promise<
    ({ ok: true } & ({ free: true } | { free: false; redisKeys: string[] })) | Exclude<Acquired, { ok: true }>
  > {
    const distinct = new Map<string, RateLimitKey>();
    for (const entry of keys) {
      checkLimit(entry.key, entry.limit);
      if (!distinct.has(entry.key)) distinct.set(entry.key, entry);
    }
    if (distinct.size === 0) return { ok: true, free: true };
    const names = [...distinct.keys()];
    const redisKeys: string[] = [];
    for (const { key, namesCaller } of distinct.values()) {
      if (!namesCaller) redisKeys.push(RATE_LIMIT_PREFIX + key);
      else if (this.names) redisKeys.push(this.names.name({ prefix: `${RATE_LIMIT_PREFIX}caller:`, parts: key }));
      else return { ok: false, unavailable: UNNAMED };
    }
    const args = ["reserve", member, now === undefined ? "" : String(Math.round(now * 1000)), String(leadMs * 1000)];
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
      return { ok: true, free: true };
    }
    this.warned = false;
    const [admitted, waitUs, index] = reply as [number, number?, number?];
    if (admitted === 1) return { ok: true, free: false, redisKeys };
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil((waitUs ?? 0) / 1000)), key: names[(index ?? 1) - 1]! };
  }

  /**
   * The provisional entry's permit. Its re-stamp goes after the request has left (so the server's time for it is
   * after the hand-off) and is not waited for: until it lands the entry still counts, which errs on the safe side.
   * A stamp or release Redis does not take leaves the entry provisional: it counts until its time and one window.
   */
  private permit({ keys, member, asked }: { keys: string[]; member: string; asked: number }): Permit {
    let open = true;
    const finish = (op: "stamp" | "release"): void => {
      if (!open) return;
      open = false;
      this.run(keys, [op, member, ""]).catch(() => {});
    };
    return {
      live: () => open && performance.now() - asked < PENDING_MS,
      sent: () => finish("stamp"),
      release: () => finish("release"),
    };
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
