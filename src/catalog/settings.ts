// The settings file's shape (`--config`): plain data, read by the loader (`serve`) or by a generated server, and
// applied by the runtime (runtime/settings.ts). Its published schema is schemas/settings.schema.json.

import type { InFlightLimits, RateLimits } from "./types.js";

export type PolicyDecision = "allow" | "approve" | "deny";
export type CredentialValues =
  | string
  | { value?: string; username?: string; password?: string; clientId?: string; clientSecret?: string };

export interface Settings {
  /** Where the settings came from, for messages. */
  file: string;
  baseUrl?: string;
  /** Values for the documents' server variables, for every source. */
  serverVariables?: Record<string, string | number>;
  include?: string[];
  exclude?: string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
  outputValidation?: "strict" | "warn" | "off";
  allowInsecureHttp?: boolean;
  auditLog?: string;
  policy?: Record<string, PolicyDecision>;
  deniedTools?: "hide" | "refuse";
  approvalTimeoutSeconds?: number;
  /** `serve` only: one tool per operation, or search_tools, describe_tool and call_tool. */
  mode?: "tools" | "dynamic";
  /** `serve --transport http` only: session idle expiry and caps. */
  sessionIdleTimeoutSeconds?: number;
  maxSessions?: number;
  maxSessionsPerPrincipal?: number;
  /** `serve --transport http` only: time to receive a request, bytes of bodies still arriving. */
  headersTimeoutSeconds?: number;
  requestTimeoutSeconds?: number;
  maxPendingBodyBytes?: number;
  maxPendingBodyBytesPerPrincipal?: number;
  rateLimits?: RateLimits;
  /** Calls in flight per upstream origin, per caller, waiting, and for how long; `inFlight.sources` per source. */
  maxInFlight?: number;
  maxInFlightPerPrincipal?: number;
  maxQueued?: number;
  queueTimeoutMs?: number;
  inFlight?: { sources?: Record<string, InFlightLimits> };
  credentials?: Record<string, CredentialValues>;
  /** Schemes defined or redirected, as a manifest's `auth` (`<source-id>.<scheme>` keys for several sources). */
  auth?: Record<string, unknown>;
  /** `serve`: refuse to start while a tool lacks its credentials. */
  requireCredentials?: boolean;
  /** Keep built catalogs in the user's cache directory and use them again (default true; `--no-cache`). */
  cache?: boolean;
}
