// What the operator configures for endpoint auth: the two modes' settings, checked by static-tokens.ts and
// resource-config.ts; a bad value stops the start with an E_AUTH_CONFIG UserError naming it.

import { UserError } from "../catalog/errors.js";

/** Bearer tokens from an environment variable: `MCP_TOKENS=token-a,token-b`. */
export interface StaticTokenAuthConfig {
  type: "static";
  /** The name of the environment variable that holds the accepted tokens, comma-separated. */
  tokenEnv: string;
}

/** The MCP endpoint as an OAuth 2.0 protected resource that accepts JWT access tokens. */
export interface OAuthResourceAuthConfig {
  type: "oauth";
  /** The canonical URL of the MCP endpoint as clients know it, e.g. `https://mcp.example.com/mcp`. */
  resource: string;
  /** Issuer identifiers of the authorization servers whose tokens are accepted, compared exactly with `iss`. */
  authorizationServers: string[];
  /**
   * Where the signing keys are. Default: the `jwks_uri` of each issuer's metadata, discovered at
   * `/.well-known/oauth-authorization-server` or `/.well-known/openid-configuration` and cached.
   */
  jwksUrl?: string;
  /** Accepted `aud` values; a token must name at least one. Default: `resource`. */
  audience?: string | string[];
  /** Scopes every token must carry (`scope` or `scp` claim); a token without them gets 403 insufficient_scope. */
  requiredScopes?: string[];
  /** `scopes_supported` in the metadata. Default: `requiredScopes`. */
  scopesSupported?: string[];
  /** Accepted signature algorithms, asymmetric only. Default: RS, PS, ES families and EdDSA. */
  algorithms?: string[];
  /** Leeway for `exp`, `nbf` and a future `iat` (seconds). Default 30. */
  clockToleranceSeconds?: number;
  /**
   * The claim that names the caller; a token without it (a non-empty string) is refused. Default `sub`, which RFC
   * 9068 requires; `client_id` or `azp` for an issuer whose client-credentials tokens carry no `sub`.
   */
  principalClaim?: string;
  /** `resource_name` in the metadata. */
  resourceName?: string;
  /** Permit http:// issuer, JWKS and resource URLs on non-loopback hosts (loopback is always allowed). */
  allowInsecureHttp?: boolean;
}

export type AuthConfig = StaticTokenAuthConfig | OAuthResourceAuthConfig;

export function authConfigError(message: string): UserError {
  return new UserError({ code: "E_AUTH_CONFIG", message: `Endpoint auth: ${message}` });
}
