// Rate limits as a sliding log: never more than N requests in ANY window of the stated length.
//
// A token bucket with burst N refills while it drains, so it lets up to 2N−1 requests through in one window and
// trips the upstream's own limiter. Here each key keeps the times of its last N admitted requests in a ring; a new
// request is admitted only when the oldest of those is at least one window old. Then any N+1 admitted requests
// span at least a window, so no half-open window [s, s + W) (nor any fixed window an upstream counts in) holds
// more than N. Memory per key grows with use, up to N timestamps.

import type { RateLimit } from "../catalog/types.js";

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
  /** A shared store (state/redis-limiter.ts) could not be asked: the caller sends nothing (fails closed). */
  | { ok: false; unavailable: string };

/**
 * What the engine asks before sending: this process's memory (RateLimiter) or a store shared by replicas
 * (state/redis-limiter.ts). All-or-none across `keys`, as `RateLimiter.tryAcquire` describes.
 */
export interface Limiter {
  acquire(options: { keys: readonly RateLimitKey[] }): Promise<Acquired>;
}

export interface RateLimiterOptions {
  /** Milliseconds on a clock that never goes back (default: `performance.now()`). */
  clock?: () => number;
}

/** The last admitted request times of one key, oldest first from `start`. */
interface Log {
  requests: number;
  windowMs: number;
  times: number[];
  /** Index of the oldest time once `times` is full (a ring); 0 while it is still filling. */
  start: number;
}

/** Every this many acquisitions, logs that can no longer hold anything back are dropped (per-caller keys come and go). */
const SWEEP_EVERY = 1024;

export class RateLimiter implements Limiter {
  private readonly logs = new Map<string, Log>();
  private readonly clock: () => number;
  private sinceSweep = 0;

  constructor(options: RateLimiterOptions = {}) {
    this.clock = options.clock ?? (() => performance.now());
  }

  /**
   * Admits one request if every key admits it, and then counts it against all of them; otherwise counts it
   * against none and says, for the key with the longest wait, how long until it would be admitted (provided
   * nothing else is admitted meanwhile). A key listed twice counts once.
   */
  tryAcquire({ keys, now = this.clock() }: { keys: readonly RateLimitKey[]; now?: number }): Decided {
    const distinct = new Map<string, Log>();
    for (const { key, limit } of keys) {
      if (!distinct.has(key)) distinct.set(key, this.log(key, limit));
    }
    let refusal: { retryAfterMs: number; key: string } | undefined;
    for (const [key, log] of distinct) {
      const wait = waitOf(log, now);
      if (wait > 0 && (!refusal || wait > refusal.retryAfterMs)) refusal = { retryAfterMs: wait, key };
    }
    if (refusal) return { ok: false, ...refusal };
    for (const log of distinct.values()) record(log, now);
    if (++this.sinceSweep >= SWEEP_EVERY) this.sweep(now);
    return { ok: true };
  }

  async acquire({ keys }: { keys: readonly RateLimitKey[] }): Promise<Acquired> {
    return this.tryAcquire({ keys });
  }

  /** Keys with a history, for tests and memory checks. */
  get size(): number {
    return this.logs.size;
  }

  /**
   * Drops the logs whose newest request is a window old: every time in them is, so they admit the next request
   * as an empty log would, and forgetting them changes no answer.
   */
  sweep(now = this.clock()): void {
    this.sinceSweep = 0;
    for (const [key, log] of this.logs) if (now - newest(log) >= log.windowMs) this.logs.delete(key);
  }

  /** Forgets every key's history. */
  reset(): void {
    this.logs.clear();
  }

  /** The log of `key`, made to follow `limit` if it changed (keeping the most recent times that still fit). */
  private log(key: string, limit: RateLimit): Log {
    checkLimit(key, limit);
    // To the microsecond, so 0.007 s is 7 ms and not 7.000000000000001.
    const windowMs = Math.round(limit.windowSeconds * 1e6) / 1e3;
    const found = this.logs.get(key);
    if (!found) {
      const log: Log = { requests: limit.requests, windowMs, times: [], start: 0 };
      this.logs.set(key, log);
      return log;
    }
    if (found.requests !== limit.requests) {
      const ordered = [...found.times.slice(found.start), ...found.times.slice(0, found.start)];
      found.times = ordered.slice(Math.max(0, ordered.length - limit.requests));
      found.start = 0;
      found.requests = limit.requests;
    }
    found.windowMs = windowMs;
    return found;
  }
}

/** Milliseconds until `log` admits a request at `now`; 0 when it admits one now. */
function waitOf(log: Log, now: number): number {
  if (log.times.length < log.requests) return 0;
  const oldest = log.times[log.start]!;
  const wait = oldest + log.windowMs - now;
  // Timestamps may be fractional (performance.now): round a wait up so that waiting it is always enough.
  return wait > 0 ? Math.max(1, Math.ceil(wait)) : 0;
}

function newest(log: Log): number {
  if (log.times.length < log.requests) return log.times.at(-1) ?? Number.NEGATIVE_INFINITY;
  return log.times[(log.start + log.requests - 1) % log.requests]!;
}

function record(log: Log, now: number): void {
  if (log.times.length < log.requests) {
    log.times.push(now);
    return;
  }
  log.times[log.start] = now;
  log.start = (log.start + 1) % log.requests;
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

// Retry-After (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date in one of its three forms (always GMT).
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * How long a `Retry-After` header asks to wait, in milliseconds from `now` (epoch ms): 0 for a date already
 * past, undefined when the header is absent or says nothing this can read. Seconds may carry a fraction, which
 * the RFC does not allow but some servers send.
 */
export function retryAfterMs(headerValue: string | undefined, now: number): number | undefined {
  if (headerValue === undefined) return undefined;
  const text = headerValue.trim();
  if (DELAY_SECONDS.test(text)) {
    const ms = Math.ceil(Number(text) * 1000);
    return Number.isFinite(ms) ? ms : undefined;
  }
  let date: number;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) date = Date.parse(text);
  // asctime names no zone, and Date.parse would read it as local time: HTTP dates are GMT.
  else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text.replace(/ {2}/, " ")} GMT`);
  else return undefined;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
