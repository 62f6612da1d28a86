// Tokens exchanged for callers' MCP tokens (RFC 8693, ../credentials/token-exchange.ts) kept for every replica: in Redis,
// sealed, one exchange per principal across replicas (the lock of redis-token-cache.ts, as for the OAuth
// client-credentials token). Each call reads the shared entry (one GET), so an entry one replica dropped after a 401
// is gone for all. While Redis is lost the exchange keeps its own per-replica cache (one log line), and is asked
// again a second later; once Redis answers, tokens are shared again.

import type { RedisConnection } from "./redis.js";
import { RedisLost, RedisTokenCache, type SharedEntry } from "./redis-token-cache.js";
import type { Sealer } from "./sealed.js";

export const EXCHANGE_PREFIX = "openapi-mcp:exchange:";
/** While Redis is lost, it is asked again this often; calls in between use this replica's own cache. */
const RETRY_MS = 1_000;

export class SharedExchanges {
  private readonly cache: RedisTokenCache;
  private readonly sealer: Sealer;
  private readonly log: (line: string) => void;
  /** Set while Redis is lost: when to try it again. */
  private retryAt: number | undefined;

  constructor({ redis, sealer, log }: { redis: RedisConnection; sealer: Sealer; log: (line: string) => void }) {
    this.cache = new RedisTokenCache({ redis, sealer });
    this.sealer = sealer;
    this.log = log;
  }

  /** False while Redis is lost and not yet due to be asked again. */
  get usable(): boolean {
    return this.retryAt === undefined || Date.now() >= this.retryAt;
  }

  /** The Redis key for what `parts` name (a keyed digest: no principal or client id shows in Redis). */
  name(parts: unknown): string {
    return this.sealer.name({ prefix: EXCHANGE_PREFIX, parts });
  }

  /**
   * The entry under `name`, or the one `fetch` gives (asked by one replica at a time); undefined when Redis is lost
   * before anything was fetched, so the caller exchanges on its own. `fetch`'s own errors reject as they are.
   */
  async getOrFetch(request: {
    name: string;
    timeoutMs: number;
    fetch: () => Promise<{ text: string; ttlMs: number }>;
  }): Promise<SharedEntry | undefined> {
    try {
      const entry = await this.cache.getOrFetch(request);
      this.retryAt = undefined;
      return entry;
    } catch (error) {
      if (!(error instanceof RedisLost)) throw error;
      if (this.retryAt === undefined)
        this.log(
          `shared state: the token-exchange cache in Redis cannot be read (${error.message}); this replica exchanges and caches on its own until Redis answers again`,
        );
      this.retryAt = Date.now() + RETRY_MS;
      return undefined;
    }
  }

  /** Drops the entry under `name` for every replica, if Redis still holds `sealed` there (a newer one stays). */
  drop(entry: { name: string; sealed: string }): void {
    this.cache.drop(entry).catch(() => {});
  }
}
