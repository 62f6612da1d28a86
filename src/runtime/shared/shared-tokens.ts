// One OAuth client-credentials token for every replica: the cache of ../credentials/oauth.ts kept in Redis, sealed
// (redis-token-cache.ts), so that concurrent refreshes across replicas make one token request. Each call reads the
// shared entry (one GET), so a token one replica dropped after a 401 is replaced for all. Calls of this replica at
// the same time share that read, as they share one token request in ../credentials/oauth.ts. While Redis is lost, this
// replica's own provider fetches and caches (one log line); once Redis answers again, the token is shared again.

import {
  type AccessToken,
  abortable,
  type ClientCredentials,
  TokenProvider,
  type TokenProviderOptions,
  type TokenSource,
} from "../credentials/oauth.js";
import { DEFAULT_TOKEN_TIMEOUT_MS } from "../credentials/token-request.js";
import type { RedisConnection } from "./redis.js";
import { RedisLost, RedisTokenCache, type SharedEntry } from "./redis-token-cache.js";
import type { Sealer } from "./sealed.js";

export const OAUTH_PREFIX = "openapi-mcp:oauth:";
/** While Redis is lost, it is asked again this often; calls in between go to this replica's provider at once. */
const RETRY_MS = 1_000;

export class SharedTokenProvider implements TokenSource {
  private readonly cache: RedisTokenCache;
  private readonly sealer: Sealer;
  private readonly local: TokenProvider;
  private readonly timeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  /** One Redis round at a time per credentials, by key name. */
  private readonly pending = new Map<string, Promise<AccessToken>>();
  /** The entry each key was last read as, for `invalidate`'s compare. */
  private readonly seen = new Map<string, { value: string; sealed: string }>();
  /** Set while Redis is lost: when to try it again. */
  private retryAt: number | undefined;

  constructor({
    redis,
    sealer,
    log,
    ...options
  }: TokenProviderOptions & { redis: RedisConnection; sealer: Sealer; log: (line: string) => void }) {
    this.cache = new RedisTokenCache({ redis, sealer });
    this.sealer = sealer;
    this.local = new TokenProvider(options);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS;
    this.log = log;
    this.now = options.now ?? Date.now;
  }

  token(credentials: ClientCredentials, { signal }: { signal?: AbortSignal } = {}): Promise<AccessToken> {
    if (this.retryAt !== undefined && Date.now() < this.retryAt)
      return this.local.token(credentials, signal ? { signal } : {});
    const { tokenUrl, clientId, clientSecret, scopes, method } = credentials;
    const name = this.sealer.name({
      prefix: OAUTH_PREFIX,
      parts: [tokenUrl, clientId, clientSecret, [...new Set(scopes)].sort(), method ?? ""],
    });
    let pending = this.pending.get(name);
    if (!pending) {
      const started: Promise<AccessToken> = this.shared({ name, credentials }).finally(() => {
        if (this.pending.get(name) === started) this.pending.delete(name);
      });
      // Nobody may be waiting any more (every caller cancelled): the outcome is still handled.
      started.catch(() => {});
      this.pending.set(name, started);
      pending = started;
    }
    return signal ? abortable(pending, signal, tokenUrl) : pending;
  }

  invalidate(token: string): void {
    this.local.invalidate(token);
    for (const [name, entry] of this.seen) {
      if (entry.value !== token) continue;
      this.seen.delete(name);
      // Calls from now on read Redis again rather than join a read that may return this token.
      this.pending.delete(name);
      // Sent before any later read on the same connection, so the retry does not read the refused token.
      this.cache.drop({ name, sealed: entry.sealed }).catch(() => {});
    }
  }

  private async shared({ name, credentials }: { name: string; credentials: ClientCredentials }) {
    let entry: SharedEntry;
    try {
      entry = await this.cache.getOrFetch({
        name,
        timeoutMs: this.timeoutMs,
        fetch: async () => {
          const token = await this.local.request(credentials);
          return { text: JSON.stringify(token), ttlMs: token.refreshAt - this.now() };
        },
      });
    } catch (error) {
      if (!(error instanceof RedisLost)) throw error;
      if (this.retryAt === undefined)
        this.log(
          `shared state: the OAuth token cache in Redis cannot be read (${error.message}); this replica fetches its own tokens until Redis answers again`,
        );
      this.retryAt = Date.now() + RETRY_MS;
      return this.local.token(credentials);
    }
    this.retryAt = undefined;
    const token = JSON.parse(entry.text) as AccessToken;
    this.seen.set(name, { value: token.value, sealed: entry.sealed });
    return token;
  }
}
