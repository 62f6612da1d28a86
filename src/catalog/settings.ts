// The settings file's shape (`--config`): plain data, read by the loader (`serve`) or by a generated server, and
// applied by the runtime (runtime/settings.ts). Its published schema is schemas/settings.schema.json.

import type { RateLimits } from "./types.js";

export type PolicyDecision = "allow" | "approve" | "deny";
export type CredentialValues =
  | string
  | {
      value?: string;
      username?: string;
      password?: string;
      clientId?: string;
      clientSecret?: string;
      /** The value comes from each caller instead: exactly one mode (runtime/user-credential-modes.ts). */
      perUser?: PerUserSettings;
    };

/** A per-user mode of a scheme (issue 14). */
export interface PerUserSettings {
  signIn?: SignInSettings;
}

/** Each user signs in at the API's provider (OAuth 2.0 authorization code with PKCE). */
export interface SignInSettings {
  clientId: string;
  clientSecret?: string;
  scopes?: string[];
  /** Default: the scheme's authorizationCode flow in the document. */
  authorizationUrl?: string;
  tokenUrl?: string;
  revocationUrl?: string;
  /** This server's callback as registered at the provider; or `publicUrl` + `/oauth/callback`. */
  redirectUrl?: string;
  publicUrl?: string;
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
  credentials?: Record<string, CredentialValues>;
  /** Schemes defined or redirected, as a manifest's `auth` (`<source-id>.<scheme>` keys for several sources). */
  auth?: Record<string, unknown>;
  /** `serve`: refuse to start while a tool lacks its credentials. */
  requireCredentials?: boolean;
  /** Where users' sign-in tokens are kept (encrypted with OPENAPI_MCP_TOKEN_KEY). */
  tokenStore?: { file?: string };
  /** Keep built catalogs in the user's cache directory and use them again (default true; `--no-cache`). */
  cache?: boolean;
}
