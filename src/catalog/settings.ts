// The settings file's shape (`--config`): plain data, read by the loader (`serve`) or by a generated server, and
// applied by the runtime (runtime/settings.ts). Its published schema is schemas/settings.schema.json.

import type { RegistrySecrets } from "./secret-assignments.js";
import type { InFlightLimits, RateLimit, RateLimits } from "./types.js";

export type PolicyDecision = "allow" | "approve" | "deny";
export type CredentialValues =
  | string
  | {
      value?: string;
      username?: string;
      password?: string;
      clientId?: string;
      clientSecret?: string;
      /** The value comes from each caller, not from here (runtime/credentials/user-credential-modes.ts). */
      perUser?: PerUserCredentials;
    };

/** How each caller's own value for a scheme is obtained: exactly one mode. */
export interface PerUserCredentials {
  /** From a request header the caller sends. */
  forwarded?: { header: string };
  /** RFC 8693 token exchange of the caller's MCP access token. */
  exchange?: TokenExchangeSettings;
  /** Each user signs in at the API's provider. */
  signIn?: SignInSettings;
}

/** Each user signs in at the API's provider (OAuth 2.0 authorization code with PKCE). */
export interface SignInSettings {
  clientId: string;
  clientSecret?: string;
  /** How the secret reaches the token URL (default client_secret_basic; GitHub wants client_secret_post). */
  authMethod?: "client_secret_basic" | "client_secret_post";
  scopes?: string[];
  /** Default: the scheme's authorizationCode flow in the document. */
  authorizationUrl?: string;
  tokenUrl?: string;
  revocationUrl?: string;
  /** This server's callback as registered at the provider; or `publicUrl` + `/oauth/callback`. */
  redirectUrl?: string;
  publicUrl?: string;
}

export interface TokenExchangeSettings {
  tokenUrl: string;
  clientId: string;
  /** `${VAR}` references are read from the environment. */
  clientSecret: string;
  audience?: string;
  resource?: string;
  scopes?: string[];
  /** How the client authenticates to the token URL (default client_secret_basic). */
  authMethod?: "client_secret_basic" | "client_secret_post";
  /** Default urn:ietf:params:oauth:token-type:access_token. */
  subjectTokenType?: string;
  requestedTokenType?: string;
}

/** A claim value a profile's `match` asks for: equal to the claim, or among its values when the claim is a list. */
export type ClaimValue = string | number | boolean;

/** What one profile (settings `profiles:`) lets the callers it matches see and do (runtime/profiles/profiles.ts). */
export interface ProfileSettings {
  /** Claim name (or dotted path) -> the value(s) it must have; every entry must hold. Absent: only as the default. */
  match?: Record<string, ClaimValue | ClaimValue[]>;
  include?: string[];
  exclude?: string[];
  /** As the top-level `policy`, applied after it. */
  policy?: Record<string, PolicyDecision>;
  /** Budgets per caller of this profile, inside the server's tool and source limits. */
  rateLimits?: RateLimits & { calls?: RateLimit };
  /** Each caller's own in-flight limits at one origin (the origin's own limit stays the server's). */
  inFlight?: Pick<InFlightLimits, "maxInFlightPerPrincipal" | "maxQueued" | "queueTimeoutMs">;
  /** The per-user schemes whose value its callers bring; for the others they act with the server's. Absent: all. */
  credentials?: string[];
}

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
  /** Hidden characters in the API's text: removed or kept; `responseTextSources` by source id. */
  responseText?: "strip" | "keep";
  responseTextSources?: Record<string, "strip" | "keep">;
  markResponseText?: boolean;
  /** Shared state of replicas: `memory` or a Redis URL, and what to do when Redis is unreachable. */
  state?: string;
  stateFallback?: "memory";
  stateFail?: "closed" | "open";
  allowInsecureHttp?: boolean;
  auditLog?: string;
  policy?: Record<string, PolicyDecision>;
  deniedTools?: "hide" | "refuse";
  approvalTimeoutSeconds?: number;
  /** Where calls needing approval are asked: the client, the console's Approvals page, or both; by class or tool. */
  approvals?: "client" | "console" | "both" | Record<string, "client" | "console" | "both">;
  /** `serve` only: one tool per operation, search_tools, describe_tool and call_tool, or scripts (code). */
  mode?: "tools" | "dynamic" | "code";
  /** Code mode's limits on one script run. */
  scriptTimeoutMs?: number;
  scriptCpuMs?: number;
  scriptMemoryBytes?: number;
  scriptStackBytes?: number;
  scriptMaxCalls?: number;
  scriptMaxOutputBytes?: number;
  /** Code mode's bounds on the scripts waiting for a worker: all callers' count and bytes, one caller's bytes. */
  scriptMaxQueued?: number;
  scriptQueueBytes?: number;
  scriptQueueBytesPerPrincipal?: number;
  /** `serve --transport http` only: the admin console at /console, and the variable holding its admin token. */
  console?: boolean;
  consoleTokenEnv?: string;
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
  /** By name, tried in order: the first whose `match` fits the verified caller is its profile. */
  profiles?: Record<string, ProfileSettings>;
  /** The profile of callers no profile matches (and of stdio and unauthenticated HTTP); absent: they are refused. */
  defaultProfile?: string;
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
  /** `${file:…}` secrets may be readable by group or others. */
  allowReadableSecretFiles?: boolean;
  /** Credential processes `${cmd:NAME}` runs: the program and its arguments (no shell), TTL and timeout. */
  secrets?: Record<string, { command: string[]; ttlSeconds?: number; timeoutMs?: number }>;
  /** `serve`: what each registry source and console draft may use, by namespace (secret-assignments.ts). */
  registrySecrets?: Record<string, RegistrySecrets>;
  /** Where users' sign-in tokens are kept (encrypted with OPENAPI_MCP_TOKEN_KEY). */
  tokenStore?: { file?: string };
  /** Keep built catalogs in the user's cache directory and use them again (default true; `--no-cache`). */
  cache?: boolean;
}
