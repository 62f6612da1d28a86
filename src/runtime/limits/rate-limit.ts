// Rate limits as a sliding log: never more than N requests leave in ANY window of the stated length.
//
// A token bucket with burst N refills while it drains, so it lets up to 2N−1 requests through in one window and
// trips the upstream's own limiter. Here each key keeps one entry per admitted request, and a request is admitted
// only while fewer than N entries are in the window (time > now − W). What counts is when a request LEAVES, as
// the API counts arrivals: an admitted call may be held up before it sends (a hook, a paused process, a retry's
// pause), and stamped at admission it would bunch with the next ones. So an entry is provisional at admission,
// time a + P (P = PENDING_MS), later than any admission that can happen before it sends, and is re-stamped once
// the request is handed to the connection, with a time s ≥ that hand-off time d; an entry whose call ends unsent
// is removed, and a call may send only while d < a + P (else it sends nothing).
//
// Proof that no window [x, x + W) holds more than N hand-offs: suppose N+1 do, and let k be the one admitted
// last, at a_k ≤ d_k < x + W. Every other j was admitted before, and d_j ≥ x > d_k − W ≥ a_k − W. At a_k, j's
// entry was either provisional, with time a_j + P > d_j > a_k − W, or re-stamped, with time s_j ≥ d_j > a_k − W:
// in the window either way. So k saw N entries and was refused, a contradiction. Every request that leaves gets
// its own admission (a retry, a redirect, a resend after a 401), so this holds per request, not per call. With
// Redis (shared/redis-limiter.ts) a and s are the Redis server's clock: the request leaves after the admission's
// reply (a ≤ d) and the re-stamp is sent after it leaves (s ≥ d), and the call's P is timed from before it asked.

import type { RateLimit } from "../../catalog/types.js";
import { type Entry, MemoryLog } from "./rate-limit-log.js";

/** How long an admitted request may take to leave; past it, its place lapses and it is not sent. */
export const PENDING_MS = 30_000;

export interface RateLimitKey {
  /** `tool:<name>`, `source:<id>`, or any other scope the caller counts in. */
  key: string;
  limit: RateLimit;
  /** Set when `key` names a caller (a profile's budget): a shared store keeps it only as a keyed digest. */
  namesCaller?: true;
}

/** What a limit decides: admitted, or refused with the longest wait and its key. */
export type Decided = { ok: true } | { ok: false; retryAfterMs: number; key: string };

export type Acquired =
  | Decided
  /** A shared store (shared/redis-limiter.ts) could not be asked: the caller sends nothing (fails closed). */
  | { ok: false; unavailable: string };

/** One admitted request's place under its limits, from admission until it leaves (or the call ends unsent). */
export interface Permit {
  /** Whether the request may still go: less than PENDING_MS since it asked, and not released. */
  live(): boolean;
  /** Right after the request is handed to the connection: its place now counts from this moment. */
  sent(): void;
  /** The request will not be sent: its place is given back (nothing once sent). */
  release(): void;
}

export type Reserved = { ok: true; permit: Permit } | Exclude<Acquired, { ok: true }>;

/**
 * What the engine asks before each request: this process's memory (RateLimiter) or a store shared by replicas
 * (shared/redis-limiter.ts). All-or-none across `keys`, as `RateLimiter.tryAcquire` describes.
 */
export interface Limiter {
  reserve(options: { keys: readonly RateLimitKey[] }): Promise<Reserved>;
}

/** A permit with nothing to count: no keys, or a shared store that failed open. */
export const FREE_PERMIT: Permit = { live: () => true, sent: () => {}, release: () => {} };

export interface RateLimiterOptions {
  /** Milliseconds on a clock that never goes back (default: `performance.now()`). */
  clock?: () => number;
}

/** Every this many admissions, logs that can no longer hold anything back are dropped (per-caller keys come and go). */
const SWEEP_EVERY = 1024;

export class RateLimiter implements Limiter {
  private readonly logs = new Map<string, MemoryLog>();
  private readonly clock: () => number;
  private sinceSweep = 0;

  constructor(options: RateLimiterOptions = {}) {
    this.clock = options.clock ?? (() => performance.now());
  }

  /**
   * Admits one request if every key admits it, and then counts it against all of them, provisionally until it
   * leaves; otherwise counts it against none and says, for the key with the longest wait, how long until it would
   * be admitted (provided nothing else is admitted meanwhile). A key listed twice counts once.
   */
  reserveNow({ keys, now = this.clock() }: { keys: readonly RateLimitKey[]; now?: number }): Reserved {
    const admitted = this.admit({ keys, now });
    if ("retryAfterMs" in admitted) return { ok: false, ...admitted };
    if (admitted.length === 0) return { ok: true, permit: FREE_PERMIT };
    let open = true;
    /** True the first time: a permit is sent or released once. */
    const close = (): boolean => {
      const was = open;
      open = false;
      return was;
    };
    return {
      ok: true,
      permit: {
        live: () => open && this.clock() - now < PENDING_MS,
        sent: () => {
          if (!close()) return;
          const at = this.clock();
          for (const { entry } of admitted) entry.time = at;
        },
        release: () => {
          if (close()) for (const { log, entry } of admitted) log.remove(entry);
        },
      },
    };
  }

  async reserve({ keys }: { keys: readonly RateLimitKey[] }): Promise<Reserved> {
    return this.reserveNow({ keys });
  }

  /** A request admitted and sent at `now` at once (replayed arrivals, tests). */
  tryAcquire({ keys, now = this.clock() }: { keys: readonly RateLimitKey[]; now?: number }): Decided {
    const admitted = this.admit({ keys, now });
    if ("retryAfterMs" in admitted) return { ok: false, ...admitted };
    for (const { entry } of admitted) entry.time = now;
    return { ok: true };
  }

  /** The request's provisional entries in every key's log, or the longest wait and its key. */
  private admit({
    keys,
    now,
  }: {
    keys: readonly RateLimitKey[];
    now: number;
  }): Array<{ log: MemoryLog; entry: Entry }> | { retryAfterMs: number; key: string } {
    const distinct = new Map<string, MemoryLog>();
    for (const { key, limit } of keys) {
      if (!distinct.has(key)) distinct.set(key, this.log(key, limit));
    }
    let refusal: { retryAfterMs: number; key: string } | undefined;
    for (const [key, log] of distinct) {
      const wait = log.waitAt(now);
      if (wait > 0 && (!refusal || wait > refusal.retryAfterMs)) refusal = { retryAfterMs: wait, key };
    }
    if (refusal) return refusal;
    const admitted = [...distinct.values()].map((log) => ({ log, entry: log.add(now + PENDING_MS) }));
    // After adding: a log just given a provisional entry is not idle, and stays.
    if (++this.sinceSweep >= SWEEP_EVERY) this.sweep(now);
    return admitted;
  }

  /** Keys with a history, for tests and memory checks. */
  get size(): number {
    return this.logs.size;
  }

  /**
   * Drops the logs whose every entry is a window old: they admit the next request as an empty log would, and
   * forgetting them changes no answer (a provisional entry is never a window old).
   */
  sweep(now = this.clock()): void {
    this.sinceSweep = 0;
    for (const [key, log] of this.logs) if (log.idleAt(now)) this.logs.delete(key);
  }

  /** Forgets every key's history. */
  reset(): void {
    this.logs.clear();
  }

  /** The log of `key`, made to follow `limit` if it changed (keeping the most recent entries that still fit). */
  private log(key: string, limit: RateLimit): MemoryLog {
    checkLimit(key, limit);
    const found = this.logs.get(key);
    if (found) {
      found.follow(limit);
      return found;
    }
    const log = new MemoryLog(limit);
    this.logs.set(key, log);
    return log;
  }
}

export function checkLimit(key: string, { requests, windowSeconds }: RateLimit): void {
  if (!Number.isInteger(requests) || requests < 1 || !(windowSeconds > 0) || !Number.isFinite(windowSeconds)) {
    throw new RangeError(`Rate limit for ${key} must have a whole number of requests ≥ 1 and a window > 0 seconds`);
  }
}

export function toolKey(name: string): string {
  return `tool:${name}`;
}

export function sourceKey(id: string): string {
  return `source:${id}`;
}

/**
 * The keys a call of `tool` counts against: its own limit (`tool:<name>`) and its source's (`source:<id>`),
 * whichever are stated.
 */
export function rateLimitKeys({
  tool,
  sources,
}: {
  tool: { name: string; source: string; operation: { rateLimit?: RateLimit } };
  sources: ReadonlyArray<{ id: string; rateLimit?: RateLimit }>;
}): RateLimitKey[] {
  const keys: RateLimitKey[] = [];
  if (tool.operation.rateLimit) keys.push({ key: toolKey(tool.name), limit: tool.operation.rateLimit });
  const source = sources.find((s) => s.id === tool.source);
  if (source?.rateLimit) keys.push({ key: sourceKey(source.id), limit: source.rateLimit });
  return keys;
}
