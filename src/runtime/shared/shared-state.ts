// Where replicas keep what they must agree on (`--state`): this process's memory (the default), or Redis. Opened
// once at start: an unreachable Redis stops the start with a clear error, unless `--state-fallback memory` says to
// run alone (with a warning: limits then count per replica). Beside the rate limiter, on the same connection: used
// approval and sign-in states, users' tokens, the OAuth client-credentials cache and exchanged tokens (all sealed),
// and the console's approval queue (redis-approvals.ts). What --state-secret seals or names (the token caches, the
// approval queue, keys naming callers) is kept in Redis only with one: without it, the caches are per replica, the
// approval queue is absent (serve refuses a console: state-secret-needed.ts) and caller budgets are refused.

import { UserError } from "../../catalog/errors.js";
import type { ApprovalQueue } from "../approvals/approval-queue.js";
import { defined } from "../defined.js";
import { checkedSecrets } from "../approvals/approval-state-keys.js";
import type { TokenSource } from "../credentials/oauth.js";
import type { Limiter } from "../limits/rate-limit.js";
import type { TokenKey as EncryptionKey } from "../sign-in/token-keys.js";
import type { TokenStore } from "../sign-in/token-store.js";
import type { UsedNonces } from "../approvals/used-nonces.js";
import { checkStateUrl, connectRedis, maskedUrl, type RedisConnection } from "./redis.js";
import { RedisApprovalQueue } from "./redis-approvals.js";
import { RedisRateLimiter } from "./redis-limiter.js";
import { RedisUsedNonces } from "./redis-nonces.js";
import { RedisTokenStore } from "./redis-token-store.js";
import { Sealer } from "./sealed.js";
import { SharedExchanges } from "./shared-exchanges.js";
import { SharedTokenProvider } from "./shared-tokens.js";

export interface StateOptions {
  /** `memory` or a redis:// / rediss:// URL (default memory). */
  state?: string;
  /** `memory`: when Redis cannot be reached at start, run with this process's memory only (warns). */
  stateFallback?: "memory";
  /** While Redis is lost: refuse rate-limited calls (closed, default) or send them unchecked (open, warns). */
  stateFail?: "closed" | "open";
  /**
   * --state-secret's values: with Redis, they seal the shared token caches and approval queue and name callers'
   * budget keys; none keeps the caches per replica and shares no approval queue or caller budget.
   */
  stateSecrets?: string[];
  /** For the shared token cache's own requests, as the engine's provider has them. */
  allowInsecureHttp?: boolean;
  timeoutMs?: number;
  /** False when no tool uses OAuth client credentials: then a missing state secret needs no warning. */
  clientCredentials?: boolean;
}

export interface SharedState {
  /** Absent for memory: the engine keeps its own. */
  limiter?: Limiter;
  /** OAuth client-credentials tokens shared by the replicas; absent for memory or without a state secret. */
  tokens?: TokenSource;
  /** Tokens exchanged per principal (RFC 8693) shared by the replicas; absent for memory or without a state secret. */
  exchanges?: SharedExchanges;
  /** Used approval and sign-in states; absent for memory (each process keeps its own). */
  usedNonces?: UsedNonces;
  /** Users' tokens, sealed with `keys` (never sent to Redis); absent for memory (the encrypted file). */
  tokenStore?: (keys: readonly EncryptionKey[]) => TokenStore;
  /** Calls waiting for the console, listed and decided on every replica; absent for memory (the engine's own). */
  approvals?: ApprovalQueue;
  /** The connection, for the stores that follow; absent for memory. */
  redis?: RedisConnection;
  /** True for Redis without --state-secret: nothing needing a seal or a keyed name can be shared. */
  secretless?: boolean;
  close(): Promise<void>;
}

const MEMORY: SharedState = { close: async () => {} };

export async function openSharedState({
  state = "memory",
  stateFallback,
  stateFail = "closed",
  stateSecrets = [],
  allowInsecureHttp,
  timeoutMs,
  clientCredentials = true,
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
  const secrets = checkedSecrets({ secrets: stateSecrets, source: SOURCE });
  const sealer = (purpose: string) => new Sealer({ secrets, purpose, source: SOURCE });
  const approvals =
    secrets.length > 0 ? new RedisApprovalQueue({ redis, sealer: sealer("approval queue"), log }) : undefined;
  const callerNames = secrets.length > 0 ? { names: sealer("rate limit names") } : {};
  return {
    limiter: new RedisRateLimiter({ redis, failOpen: stateFail === "open", log, ...callerNames }),
    ...sharedTokens({ redis, stateSecrets, clientCredentials, log, ...defined({ allowInsecureHttp, timeoutMs }) }),
    usedNonces: new RedisUsedNonces({ redis }),
    tokenStore: (keys) => new RedisTokenStore({ redis, keys }),
    ...(approvals ? { approvals } : { secretless: true }),
    redis,
    close: () => {
      approvals?.close();
      return redis.close();
    },
  };
}

const SOURCE = "--state-secret (MCP_STATE_SECRET)";

/** Tokens are kept in Redis only sealed, so only with a state secret; without one, each replica keeps its own. */
function sharedTokens({
  redis,
  stateSecrets,
  clientCredentials,
  log,
  ...options
}: {
  redis: RedisConnection;
  stateSecrets: string[];
  clientCredentials: boolean;
  log: (line: string) => void;
  allowInsecureHttp?: boolean;
  timeoutMs?: number;
}): { tokens?: TokenSource; exchanges?: SharedExchanges } {
  const source = SOURCE;
  if (checkedSecrets({ secrets: stateSecrets, source }).length === 0) {
    if (clientCredentials)
      log(
        "WARNING --state is Redis but there is no --state-secret (MCP_STATE_SECRET): OAuth client-credentials tokens are cached per replica (never kept in Redis unencrypted); give every replica the same secret to share them",
      );
    return {};
  }
  const sealer = new Sealer({ secrets: stateSecrets, purpose: "oauth token cache", source });
  const exchangeSealer = new Sealer({ secrets: stateSecrets, purpose: "token exchange cache", source });
  return {
    tokens: new SharedTokenProvider({ redis, sealer, log, ...options }),
    exchanges: new SharedExchanges({ redis, sealer: exchangeSealer, log }),
  };
}
