// Authentication of the MCP endpoint itself (`--transport http`): who may talk to this server, as opposed to the
// credentials the engine injects upstream. Two modes:
//  - static: bearer tokens listed in an environment variable, compared in constant time;
//  - oauth: an OAuth 2.0 protected resource (MCP authorization, RFC 9728 metadata, RFC 6750 challenges): JWT access
//    tokens verified against the issuer's JWKS (see issuer-keys.ts), bound to this resource by their audience, each
//    naming its caller by `sub` (or a configured claim).
// The caller's token is used here and nowhere else: once accepted it is removed from the request, so neither the SDK's
// request info nor a tool call can see it, and nothing is ever derived from caller-supplied tenant or org headers.

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { decodeJwt, errors, type JWTPayload, jwtVerify } from "jose";
import { UserError } from "../catalog/errors.js";
import { isAllowedScheme } from "../catalog/url.js";
import { AuthUnavailable, IssuerKeys, RETRY_MS } from "./issuer-keys.js";

export { metadataCandidates } from "./issuer-keys.js";

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

/** Who a request was made by, once its token is accepted. Never holds the token. */
export interface Principal {
  /** Stable per caller: a session is bound to the principal that opened it. */
  key: string;
  issuer?: string;
  subject?: string;
  clientId?: string;
  scopes: string[];
}

export type AuthResult =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      status: 400 | 401 | 403 | 503;
      headers: Record<string, string>;
      /** For the JSON-RPC error body. */
      message: string;
      /** For the log: why, without the token. */
      reason: string;
    };

export interface EndpointAuth {
  /** Checks a request to the MCP endpoint; on success the Authorization header is removed from `req`. */
  authenticate(req: IncomingMessage): Promise<AuthResult>;
  /** Answers the public routes auth adds (the protected-resource metadata); false when `path` is not one of them. */
  servePublic({ req, res, path }: { req: IncomingMessage; res: ServerResponse; path: string }): boolean;
  /** Starts what can be started ahead of the first request (key discovery); failures are logged, not thrown. */
  warmUp(): void;
}

export interface EndpointAuthOptions {
  /** Where `tokenEnv` is read. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  /** The local path of the MCP endpoint, whose metadata route is served beside the resource's own. */
  endpointPath?: string;
}

export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
/** RFC 6749 scope-token: printable ASCII without space, `"` and `\`, so it can sit in a quoted header parameter. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** What follows `Bearer ` in a well-formed header: visible ASCII, no spaces (RFC 6750 b64token, leniently). */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;
/** Claims every token shares with others of its issuer or audience: naming the caller by one would merge callers. */
const SHARED_CLAIMS = new Set(["iss", "aud", "exp", "nbf", "iat", "scope", "scp", "typ"]);
/** jose error codes that mean the token is bad; the others (timeouts, an unusable JWKS) mean we cannot tell. */
const TOKEN_ERROR_CODES = new Set([
  "ERR_JWT_EXPIRED",
  "ERR_JWT_CLAIM_VALIDATION_FAILED",
  "ERR_JWT_INVALID",
  "ERR_JWS_INVALID",
  "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
  "ERR_JOSE_ALG_NOT_ALLOWED",
  "ERR_JOSE_NOT_SUPPORTED",
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
]);

/** Builds the endpoint's authentication from its config; a bad config or a missing variable throws a UserError. */
export function createEndpointAuth(config: AuthConfig, options: EndpointAuthOptions = {}): EndpointAuth {
  if (config.type === "static") return new StaticTokenAuth(config, options);
  if (config.type === "oauth") return new OAuthResourceAuth(config, options);
  throw configError(`Unknown endpoint auth type: ${String((config as { type?: unknown }).type)}`);
}

/** The bearer token of an Authorization header: absent (none, or another scheme), malformed, or the token. */
export function parseAuthorization(header: string | undefined): { token?: string; malformed?: true } {
  if (header === undefined) return {};
  const match = /^bearer(?:[ \t]+(.*))?$/is.exec(header.trim());
  if (!match) return {};
  const token = match[1]?.trim();
  if (!token || !TOKEN_CHARS.test(token)) return { malformed: true };
  return { token };
}

/** `Bearer` with RFC 6750 parameters; values are our own (URLs, scope tokens, fixed texts), never the caller's. */
export function bearerChallenge(params: Record<string, string | undefined> = {}): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${value.replace(/["\\]/g, "")}"`);
  return parts.length ? `Bearer ${parts.join(", ")}` : "Bearer";
}

/** RFC 9728 §3.1: the well-known path inserted between the host and the resource's path. */
export function protectedResourceMetadataUrl(resource: string | URL): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/** Scopes granted by a token: `scope` (space-separated, RFC 9068) or `scp` (an array or a string, as some IdPs do). */
export function grantedScopes(payload: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const claim of [payload.scope, payload.scp]) {
    const values = typeof claim === "string" ? claim.split(" ") : Array.isArray(claim) ? claim : [];
    for (const value of values) if (typeof value === "string" && value) scopes.add(value);
  }
  return [...scopes];
}

/** Removes the caller's credentials from a request once they did their job, so nothing downstream can reuse them. */
export function stripAuthorization(req: IncomingMessage): void {
  delete req.headers.authorization;
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i]?.toLowerCase() === "authorization") raw.splice(i, 2);
}

function refusal(
  status: 400 | 401 | 403 | 503,
  {
    challenge,
    headers = {},
    message,
    reason,
  }: { challenge?: string; headers?: Record<string, string>; message: string; reason: string },
): AuthResult {
  return {
    ok: false,
    status,
    headers: { ...headers, ...(challenge ? { "www-authenticate": challenge } : {}) },
    message,
    reason,
  };
}

function configError(message: string): UserError {
  return new UserError({ code: "E_AUTH_CONFIG", message });
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

class StaticTokenAuth implements EndpointAuth {
  private readonly digests: Buffer[];

  constructor({ tokenEnv }: StaticTokenAuthConfig, { env = process.env, log }: EndpointAuthOptions) {
    if (!tokenEnv) throw configError("Endpoint auth: the name of the token variable is empty");
    const value = env[tokenEnv];
    const tokens = (value ?? "")
      .split(",")
      .map((token) => token.trim())
      .filter(Boolean);
    if (tokens.length === 0) {
      throw configError(
        `Endpoint auth: environment variable ${tokenEnv} is ${value === undefined ? "not set" : "empty"}; ` +
          "set it to one or more bearer tokens, comma-separated",
      );
    }
    const bad = tokens.findIndex((token) => !TOKEN_CHARS.test(token));
    if (bad >= 0) {
      throw configError(`Endpoint auth: token #${bad + 1} in ${tokenEnv} has characters a bearer token cannot carry`);
    }
    const short = tokens.filter((token) => token.length < 16).length;
    if (short > 0) log?.(`warning: ${short} token(s) in ${tokenEnv} are shorter than 16 characters: easy to guess`);
    this.digests = tokens.map(sha256);
  }

  async authenticate(req: IncomingMessage): Promise<AuthResult> {
    const { token, malformed } = parseAuthorization(req.headers.authorization);
    if (malformed) {
      return refusal(400, {
        challenge: bearerChallenge({ error: "invalid_request", error_description: "Malformed Authorization header" }),
        message: "Bad Request: malformed Authorization header",
        reason: "malformed Authorization header",
      });
    }
    if (token === undefined) {
      return refusal(401, {
        challenge: bearerChallenge(),
        message: "Unauthorized: a bearer token is required",
        reason: "no bearer token",
      });
    }
    // Equal-length digests compared in constant time, every one of them: neither the length of a configured token
    // nor which one matched shows in the timing.
    const presented = sha256(token);
    let match = -1;
    this.digests.forEach((digest, index) => {
      if (timingSafeEqual(digest, presented) && match < 0) match = index;
    });
    if (match < 0) {
      return refusal(401, {
        challenge: bearerChallenge({ error: "invalid_token", error_description: "The token is not valid" }),
        message: "Unauthorized: invalid bearer token",
        reason: "unknown bearer token",
      });
    }
    stripAuthorization(req);
    return { ok: true, principal: { key: `static:${match}`, scopes: [] } };
  }

  servePublic(): boolean {
    return false;
  }

  warmUp(): void {}
}

/** An http(s) URL the config may name: https, or http to loopback (or anywhere with the opt-out). */
function checkedUrl({ value, what, allowInsecureHttp }: { value: string; what: string; allowInsecureHttp: boolean }) {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw configError(`Endpoint auth: ${what} is not a URL: ${value}`);
  }
  if (!isAllowedScheme(url, allowInsecureHttp)) {
    throw configError(`Endpoint auth: ${what} must be https (http only for loopback hosts): ${value}`);
  }
  return url;
}

class OAuthResourceAuth implements EndpointAuth {
  private readonly resource: URL;
  private readonly issuers: string[];
  private readonly audience: string[];
  private readonly requiredScopes: string[];
  private readonly algorithms: string[];
  private readonly clockTolerance: number;
  private readonly principalClaim: string;
  private readonly metadataUrl: string;
  private readonly metadataPaths: Set<string>;
  private readonly metadata: string;
  private readonly keys: IssuerKeys;
  private readonly log: (line: string) => void;

  constructor(config: OAuthResourceAuthConfig, { log, endpointPath = "/mcp" }: EndpointAuthOptions) {
    this.log = log ?? (() => {});
    const allowInsecureHttp = config.allowInsecureHttp ?? false;
    this.resource = checkedUrl({ value: config.resource, what: "resource", allowInsecureHttp });
    if (this.resource.hash || this.resource.search || config.resource.includes("#")) {
      throw configError(`Endpoint auth: resource must have no query or fragment: ${config.resource}`);
    }
    if (!config.authorizationServers?.length) {
      throw configError("Endpoint auth: at least one authorization server (issuer URL) is required");
    }
    for (const issuer of config.authorizationServers) {
      const url = checkedUrl({ value: issuer, what: "authorization server", allowInsecureHttp });
      if (url.hash || url.search) throw configError(`Endpoint auth: an issuer has no query or fragment: ${issuer}`);
    }
    this.issuers = [...config.authorizationServers];
    this.audience = config.audience === undefined ? [config.resource] : [config.audience].flat();
    if (this.audience.length === 0 || this.audience.some((aud) => !aud)) {
      throw configError("Endpoint auth: audience must name at least one value");
    }
    this.requiredScopes = config.requiredScopes ?? [];
    const scopesSupported = config.scopesSupported ?? this.requiredScopes;
    for (const scope of [...this.requiredScopes, ...scopesSupported]) {
      if (!SCOPE_TOKEN.test(scope)) throw configError(`Endpoint auth: not a valid scope: ${JSON.stringify(scope)}`);
    }
    this.algorithms = config.algorithms ?? ASYMMETRIC_ALGORITHMS;
    const symmetric = this.algorithms.filter((alg) => !ASYMMETRIC_ALGORITHMS.includes(alg));
    if (this.algorithms.length === 0 || symmetric.length > 0) {
      throw configError(
        `Endpoint auth: algorithms must be asymmetric signature algorithms (${ASYMMETRIC_ALGORITHMS.join(", ")})` +
          (symmetric.length ? `; not allowed: ${symmetric.join(", ")}` : ""),
      );
    }
    this.clockTolerance = config.clockToleranceSeconds ?? 30;
    if (!(this.clockTolerance >= 0 && this.clockTolerance <= 300)) {
      throw configError("Endpoint auth: clockToleranceSeconds must be between 0 and 300");
    }
    this.principalClaim = config.principalClaim ?? "sub";
    if (!SCOPE_TOKEN.test(this.principalClaim) || SHARED_CLAIMS.has(this.principalClaim)) {
      throw configError(
        `Endpoint auth: principalClaim must name a claim that identifies the caller (sub, client_id, azp, …), ` +
          `not ${JSON.stringify(this.principalClaim)}`,
      );
    }
    this.keys = new IssuerKeys({
      allowInsecureHttp,
      ...(config.jwksUrl !== undefined
        ? { jwksUrl: checkedUrl({ value: config.jwksUrl, what: "jwksUrl", allowInsecureHttp }) }
        : {}),
    });

    this.metadataUrl = protectedResourceMetadataUrl(this.resource);
    // The path-suffixed URL is the one RFC 9728 defines for this resource; the bare one is where MCP clients look
    // next, and the local endpoint's own suffix serves a proxy that forwards paths unchanged.
    const resourcePath = new URL(this.metadataUrl).pathname;
    this.metadataPaths = new Set([
      resourcePath,
      PROTECTED_RESOURCE_WELL_KNOWN,
      `${PROTECTED_RESOURCE_WELL_KNOWN}${endpointPath}`,
    ]);
    this.metadata = JSON.stringify({
      resource: config.resource,
      authorization_servers: this.issuers,
      bearer_methods_supported: ["header"],
      ...(scopesSupported.length ? { scopes_supported: scopesSupported } : {}),
      ...(config.resourceName ? { resource_name: config.resourceName } : {}),
    });
  }

  servePublic({ req, res, path }: { req: IncomingMessage; res: ServerResponse; path: string }): boolean {
    if (!this.metadataPaths.has(path)) return false;
    // Public, and fetched by browser-based clients too: any origin may read it.
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, HEAD, OPTIONS",
      "access-control-allow-headers": "mcp-protocol-version",
    };
    if (req.method === "OPTIONS") {
      res.writeHead(204, cors).end();
    } else if (req.method === "GET" || req.method === "HEAD") {
      res
        .writeHead(200, { "content-type": "application/json", "cache-control": "public, max-age=300", ...cors })
        .end(req.method === "GET" ? this.metadata : undefined);
    } else {
      res
        .writeHead(405, { "content-type": "application/json", allow: "GET, HEAD, OPTIONS" })
        .end(JSON.stringify({ error: "Method not allowed" }));
    }
    return true;
  }

  warmUp(): void {
    this.keys.warmUp({ issuers: this.issuers, log: this.log });
  }

  async authenticate(req: IncomingMessage): Promise<AuthResult> {
    const scope = this.requiredScopes.length ? this.requiredScopes.join(" ") : undefined;
    const invalid = (description: string, reason: string = description): AuthResult =>
      refusal(401, {
        challenge: bearerChallenge({
          error: "invalid_token",
          error_description: description,
          scope,
          resource_metadata: this.metadataUrl,
        }),
        message: `Unauthorized: ${description}`,
        reason,
      });

    const { token, malformed } = parseAuthorization(req.headers.authorization);
    if (malformed) {
      return refusal(400, {
        challenge: bearerChallenge({
          error: "invalid_request",
          error_description: "Malformed Authorization header",
          resource_metadata: this.metadataUrl,
        }),
        message: "Bad Request: malformed Authorization header",
        reason: "malformed Authorization header",
      });
    }
    if (token === undefined) {
      return refusal(401, {
        challenge: bearerChallenge({ scope, resource_metadata: this.metadataUrl }),
        message: "Unauthorized: a bearer token is required",
        reason: "no bearer token",
      });
    }

    // The unverified issuer only picks the key set; jwtVerify then requires that same issuer on a verified token.
    let issuer: string;
    try {
      const claimed = decodeJwt(token).iss;
      if (typeof claimed !== "string" || !this.issuers.includes(claimed)) {
        return invalid("The token was not issued by an accepted authorization server", "issuer not accepted");
      }
      issuer = claimed;
    } catch {
      return invalid("The token is not a JWT", "not a JWT");
    }

    let payload: JWTPayload;
    try {
      const keys = await this.keys.keysFor(issuer);
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience: this.audience,
        algorithms: this.algorithms,
        clockTolerance: this.clockTolerance,
        requiredClaims: ["exp", this.principalClaim],
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError && TOKEN_ERROR_CODES.has(error.code)) {
        return invalid(describeTokenError(error), `${error.code}: ${error.message}`);
      }
      const detail = error instanceof Error ? error.message : String(error);
      const retryAfter = error instanceof AuthUnavailable ? error.retryAfterSeconds : RETRY_MS / 1000;
      return refusal(503, {
        headers: { "retry-after": String(retryAfter) },
        message: "Service Unavailable: cannot verify access tokens right now",
        reason: `cannot verify tokens from ${issuer}: ${detail}`,
      });
    }

    // jose checks `iat` only together with a maximum token age; a token issued in the future is refused all the same.
    if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + this.clockTolerance) {
      return invalid("The token was issued in the future (iat)", "iat in the future");
    }
    // Every caller has a name of its own: two tokens without one must never become the same principal.
    const named = payload[this.principalClaim];
    if (typeof named !== "string" || named === "") {
      const claim = this.principalClaim;
      return invalid(`The token's ${claim} claim does not name its holder`, `${claim} is not a non-empty string`);
    }

    const scopes = grantedScopes(payload);
    const missing = this.requiredScopes.filter((required) => !scopes.includes(required));
    if (missing.length > 0) {
      return refusal(403, {
        challenge: bearerChallenge({
          error: "insufficient_scope",
          error_description: "The token lacks a required scope",
          scope,
          resource_metadata: this.metadataUrl,
        }),
        message: `Forbidden: the token lacks the scope ${missing.join(" ")}`,
        reason: `missing scope ${missing.join(" ")}`,
      });
    }

    stripAuthorization(req);
    const subject = typeof payload.sub === "string" ? payload.sub : undefined;
    const clientId =
      typeof payload.client_id === "string"
        ? payload.client_id
        : typeof payload.azp === "string"
          ? payload.azp
          : undefined;
    return {
      ok: true,
      principal: {
        key: JSON.stringify([issuer, this.principalClaim, named, clientId ?? null]),
        issuer,
        ...(subject !== undefined ? { subject } : {}),
        ...(clientId !== undefined ? { clientId } : {}),
        scopes,
      },
    };
  }
}

/** What the client is told about a rejected token: enough to act on, nothing about our keys. */
function describeTokenError(error: InstanceType<typeof errors.JOSEError>): string {
  if (error instanceof errors.JWTExpired) return "The token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "The token was not issued for this resource";
    if (error.claim === "iss") return "The token was not issued by an accepted authorization server";
    if (error.claim === "nbf") return "The token is not valid yet";
    if (error.reason === "missing") return `The token has no ${error.claim} claim`;
    return `The token's ${error.claim} claim is not valid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return "The token's signature algorithm is not accepted";
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return "The token is malformed";
  return "The token's signature is not valid";
}
