// What an Engine is made from: the options table's settings, what a program or a test wires in, a profile's view,
// and the hooks a team's own code joins a call through. Apart from engine.ts so the engine's file holds the call.

import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Catalog, InFlightLimits, Tool } from "../catalog/types.js";
import type { AuditLog } from "./audit/audit-record.js";
import type { Environment } from "./credentials/credentials.js";
import type { Dispatcher } from "undici";
import type { InFlightGate } from "./limits/in-flight.js";
import type { TokenSource } from "./credentials/oauth.js";
import type { RuntimeSettings } from "./options.js";
import type { ApprovalQueue } from "./approvals/approval-queue.js";
import type { ApprovalRoutes } from "./approvals/approval-routes.js";
import type { Policies } from "./approvals/policy.js";
import type { ProfileBudgets } from "./profiles/profile-budgets.js";
import type { Limiter } from "./limits/rate-limit.js";
import type { RequestStates } from "./approvals/approval-states.js";
import type { SecretSources } from "./secrets/secret-sources.js";
import type { Caller, PreparedRequest, ToolResult } from "./types.js";
import type { UserCredentialMap } from "./credentials/user-credentials.js";
import type { Validator } from "./checks/validate.js";

/** The engine's settings from the options table, plus what a program or a test wires in. */
export interface EngineOptions
  extends Pick<
    RuntimeSettings,
    | "timeoutMs"
    | "maxResponseBytes"
    | "outputValidation"
    | "responseText"
    | "responseTextSources"
    | "markResponseText"
    | "allowInsecureHttp"
    | "approvalTimeoutMs"
    | "rateLimits"
    | "maxInFlight"
    | "maxInFlightPerPrincipal"
    | "maxQueued"
    | "queueTimeoutMs"
    | "inFlight"
  > {
  catalog: Catalog;
  /** Where credentials and `${VAR}` in static headers come from (default: the process environment). */
  env?: Environment;
  dispatcher?: Dispatcher;
  retryDelaysMs?: number[];
  policies?: Policies;
  audit?: AuditLog;
  tokens?: TokenSource;
  /** Where `${file:…}` and `${cmd:…}` references are resolved (default: files only, shared by the process). */
  secretSources?: SecretSources;
  /**
   * A registry's or the console's drafts' engine: each tool reads only the secrets assigned to its source's
   * namespace and sends its credentials only to the origins assigned (settings `registrySecrets`); else the call
   * is refused with nothing sent. Absent: the operator's own sources, unrestricted.
   */
  secretAssignments?: SecretAssignments;
  /** Milliseconds on a monotonic clock, for rate limits (tests inject one). */
  clock?: () => number;
  /** Arguments whose JSON is larger are refused (default 4 MiB, as the HTTP transport's body limit). */
  maxArgumentBytes?: number;
  /** Arguments holding more values (scalars, arrays, objects) are refused unchecked (default 100,000). */
  maxArgumentValues?: number;
  /** Arguments with a longer array are refused unchecked (default 10,000 items). */
  maxArrayItems?: number;
  hooks?: EngineHooks;
  /**
   * Signs and checks the state of calls waiting for approval that a client carries (beginCall, resumeCall).
   * Default: a random key of this process, used nonces in memory, the approval timeout as lifetime.
   */
  requestStates?: RequestStates;
  /** Where rate limits are counted: shared by replicas (shared/shared-state.ts); default this process's memory. */
  limiter?: Limiter;
  /** Schemes whose value depends on the caller (user-credentials.ts), by scheme id. */
  userCredentials?: UserCredentialMap;
  /** The profile this engine serves (withProfile): named on audit lines, its budgets counted per caller. */
  profile?: { name: string; budgets?: ProfileBudgets };
  /**
   * A caller's own in-flight limits (its profile's), over the defaults and the source's: how many of its calls
   * may be in flight at one origin, wait there, and for how long. Not the origin's limit, which protects the API.
   */
  inFlightFor?: (caller: Caller | undefined) => CallerInFlight | undefined;
  /** Where approvals are asked (settings `approvals`) and the console's queue of calls waiting for a person. */
  approvals?: { routes?: ApprovalRoutes; queue: ApprovalQueue };
}

/** What withProfile narrows: the tools a profile has, and its policy entries (after the server's). */
export interface EngineProfile {
  name: string;
  tools: (tool: Tool) => boolean;
  policy?: string[];
  budgets?: ProfileBudgets;
  /** Its callers' own in-flight limits, over those `inFlightFor` gives. */
  inFlight?: CallerInFlight;
  /** The per-user schemes its callers bring their own value for; absent: all of them. */
  userSchemes?: string[];
}

/** What every profile's engine shares with the engine it came from: limits, token caches, approval keys. */
export interface Shared {
  validator: Validator;
  limiter: Limiter;
  tokens: TokenSource;
  gate: InFlightGate;
}

/** What a profile may set for its callers (in-flight.ts). */
export type CallerInFlight = Pick<InFlightLimits, "maxInFlightPerPrincipal" | "maxQueued" | "queueTimeoutMs">;

/** Where a team's own code joins a call (generated projects wire `src/custom/hooks.ts` here). */
export interface EngineHooks {
  /** The request about to be sent, credentials added; return a changed one to send that instead. */
  beforeRequest?(context: {
    tool: Tool;
    arguments: Record<string, unknown>;
    request: PreparedRequest;
  }): PreparedRequest | undefined | Promise<PreparedRequest | undefined>;
  /** The result before it goes to the client (secrets are masked after this); return a changed one to use it. */
  afterResult?(context: {
    tool: Tool;
    arguments: Record<string, unknown>;
    result: ToolResult;
  }): ToolResult | undefined | Promise<ToolResult | undefined>;
}
