// Where replicas keep what they must agree on (`--state`): this process's memory (the default), or Redis. Opened
// once at start: an unreachable Redis stops the start with a clear error, unless `--state-fallback memory` says to
// run alone (with a warning: limits then count per replica). Beside the rate limiter, on the same connection: used
// approval and sign-in states, users' tokens (sealed); others (OAuth cache, sessions) are to be added here.

import { UserError } from "../../catalog/errors.js";
import type { Limiter } from "../rate-limit.js";
import type { TokenKey as EncryptionKey } from "../token-keys.js";
import type { TokenStore } from "../token-store.js";
import type { UsedNonces } from "../used-nonces.js";
import { checkStateUrl, connectRedis, maskedUrl, type RedisConnection } from "./redis.js";
import { RedisRateLimiter } from "./redis-limiter.js";
import { RedisUsedNonces } from "./redis-nonces.js";
import { RedisTokenStore } from "./redis-token-store.js";

export interface StateOptions {
  /** `memory` or a redis:// / rediss:// URL (default memory). */
  state?: string;
  /** `memory`: when Redis cannot be reached at start, run with this process's memory only (warns). */
  stateFallback?: "memory";
  /** While Redis is lost: refuse rate-limited calls (closed, default) or send them unchecked (open, warns). */
  stateFail?: "closed" | "open";
}

export interface SharedState {
  /** Absent for memory: the engine keeps its own. */
  limiter?: Limiter;
  /** Used approval and sign-in states; absent for memory (each process keeps its own). */
  usedNonces?: UsedNonces;
  /** Users' tokens, sealed with `keys` (never sent to Redis); absent for memory (the encrypted file). */
  tokenStore?: (keys: readonly EncryptionKey[]) => TokenStore;
  /** The connection, for the stores that follow; absent for memory. */
  redis?: RedisConnection;
  close(): Promise<void>;
}

const MEMORY: SharedState = { close: async () => {} };

export async function openSharedState({
  state = "memory",
  stateFallback,
  stateFail = "closed",
  log,
  commandTimeoutMs,
}: StateOptions & { log: (line: string) => void; commandTimeoutMs?: number }): Promise<SharedState> {
  if (checkStateUrl(state) === "memory") return MEMORY;
  let redis: RedisConnection;
  try {
    redis = await connectRedis({ url: state, log, ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}) });
  } catch (error) {
    const cause = error instanceof Error ? error.message || error.name : String(error);
    if (stateFallback === "memory") {
      log(
        `WARNING --state-fallback memory: Redis at ${maskedUrl(state)} unreachable (${cause}); running with this process's memory only: rate limits count per replica`,
      );
      return MEMORY;
    }
    throw new UserError({
      code: "E_STATE",
      message: `not starting: the shared state at ${maskedUrl(state)} (--state, MCP_STATE) cannot be reached: ${cause}. Start Redis, or pass --state-fallback memory to run with this process's memory only`,
    });
  }
  if (stateFail === "open")
    log("WARNING --state-fail open: while Redis is unreachable, rate-limited calls are sent without the shared limit");
  return {
    limiter: new RedisRateLimiter({ redis, failOpen: stateFail === "open", log }),
    usedNonces: new RedisUsedNonces({ redis }),
    tokenStore: (keys) => new RedisTokenStore({ redis, keys }),
    redis,
    close: () => redis.close(),
  };
}
