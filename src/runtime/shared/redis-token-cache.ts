// Tokens the replicas share in Redis, sealed (sealed.ts), with one token request across all of them: the first
// replica to miss takes a lock (SET NX PX, expiring after the token request's own timeout, so a replica that dies
// holding it delays the others by that much at most), asks, stores the token with an expiry at its refresh time,
// and lets go. The others poll until the token is there, or the lock is gone without one (then they try the lock
// themselves). A refused token is deleted only if Redis still holds that very entry (compared by the server), so a
// late 401 never drops a newer token. Redis errors reject with RedisLost; the caller decides what to do without it.

import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./redis.js";
import type { Sealer } from "./sealed.js";

/**
 * KEYS[1]'s value, or else the lock KEYS[2] taken for ARGV[1] for ARGV[2] ms: {1, value}, {2} (taken) or {0}. One
 * script, so a token stored and its lock let go between a miss and the lock cannot lead to a second request.
 */
const VALUE_OR_LOCK = `local v = redis.call('GET', KEYS[1])
if v then return {1, v} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
return {0}`;
/** Deletes KEYS[1] if it holds ARGV[1]: the lock's release and a refused token's invalidation. */
const DELETE_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const POLL_MS = 20;

/** A Redis command failed (unreachable, or no answer in time). */
export class RedisLost extends Error {}

export interface SharedEntry {
  /** What was stored, opened. */
  text: string;
  /** As Redis holds it: what `drop` compares. */
  sealed: string;
}

export class RedisTokenCache {
  private readonly redis: RedisConnection;
  private readonly sealer: Sealer;
  private readonly pollMs: number;

  constructor({ redis, sealer, pollMs = POLL_MS }: { redis: RedisConnection; sealer: Sealer; pollMs?: number }) {
    this.redis = redis;
    this.sealer = sealer;
    this.pollMs = pollMs;
  }

  /** The entry under `name`, if there is one this replica can open. One GET. */
  async get(name: string): Promise<SharedEntry | undefined> {
    const sealed = await this.command(["GET", name]);
    if (typeof sealed !== "string") return undefined;
    const text = this.sealer.open({ name, sealed });
    return text === undefined ? undefined : { text, sealed };
  }

  /**
   * The entry under `name`, or the one `fetch` gives, requested by one replica at a time. `timeoutMs` bounds
   * `fetch` (the lock lasts as long) and this replica's wait for another's; past it, this replica asks on its own.
   * A fetched entry is returned even when Redis is lost before it could be stored.
   */
  async getOrFetch({
    name,
    timeoutMs,
    fetch,
  }: {
    name: string;
    timeoutMs: number;
    fetch: () => Promise<{ text: string; ttlMs: number }>;
  }): Promise<SharedEntry> {
    const lock = `${name}:lock`;
    const holder = randomUUID();
    const deadline = Date.now() + timeoutMs;
    const found = await this.get(name);
    if (found) return found;
    for (;;) {
      // Waited as long as a token request may take: ask without the lock.
      if (Date.now() > deadline) return this.store({ name, fetched: await fetch() });
      const [state, sealed] = (await this.command([
        "EVAL",
        VALUE_OR_LOCK,
        "2",
        name,
        lock,
        holder,
        String(timeoutMs),
      ])) as [number, string?];
      const text = sealed === undefined ? undefined : this.sealer.open({ name, sealed });
      if (text !== undefined) return { text, sealed: sealed! };
      // Taken, or a value that does not open (tampered with): replace it.
      if (state === 2 || state === 1) {
        try {
          return await this.store({ name, fetched: await fetch() });
        } finally {
          if (state === 2) this.command(["EVAL", DELETE_IF, "1", lock, holder]).catch(() => {});
        }
      }
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  /** Deletes the entry under `name` if Redis still holds `sealed` there. */
  async drop({ name, sealed }: { name: string; sealed: string }): Promise<void> {
    await this.command(["EVAL", DELETE_IF, "1", name, sealed]);
  }

  private async store({ name, fetched }: { name: string; fetched: { text: string; ttlMs: number } }) {
    const sealed = this.sealer.seal({ name, text: fetched.text });
    const ttl = Math.floor(fetched.ttlMs);
    // A token that is due for refresh at once is used once and not kept (as the in-process cache does).
    if (ttl >= 1) await this.command(["SET", name, sealed, "PX", String(ttl)]).catch(() => {});
    return { text: fetched.text, sealed };
  }

  private async command(args: string[]): Promise<unknown> {
    try {
      return await this.redis.sendCommand(args);
    } catch (error) {
      throw new RedisLost(error instanceof Error ? error.message : String(error));
    }
  }
}
