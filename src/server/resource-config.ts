// The OAuth protected resource's settings resolved from its config, once, before anything listens: every value checked
// (https URLs, asymmetric algorithms, scope tokens, a claim that names the caller) and every default applied, with the
// RFC 9728 metadata document and the paths it is served at. Pure: no I/O, nothing started.

import { isAllowedScheme } from "../catalog/url.js";
import { authConfigError, type OAuthResourceAuthConfig } from "./auth-config.js";

export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

export const ASYMMETRIC_ALGORITHMS = [
  ...["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"],
  ...["EdDSA", "Ed25519"],
];
/** RFC 6749 scope-token: printable ASCII without space, `"` and `\`, so it can sit in a quoted header parameter. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** Claims every token shares with others of its issuer or audience: naming the caller by one would merge callers. */
const SHARED_CLAIMS = new Set(["iss", "aud", "exp", "nbf", "iat", "scope", "scp", "typ"]);

export interface ResourceSettings {
  issuers: string[];
  audience: string[];
  requiredScopes: string[];
  algorithms: string[];
  /** Seconds. */
  clockTolerance: number;
  principalClaim: string;
  jwksUrl?: URL;
  allowInsecureHttp: boolean;
  /** Where clients find the metadata (RFC 9728 §3.1), named in every challenge. */
  metadataUrl: string;
  /** Local paths the metadata is served at. */
  metadataPaths: Set<string>;
  /** The metadata document, serialized. */
  metadata: string;
}

/** Checks the config and applies its defaults; a value that would weaken the endpoint throws a UserError. */
export function resolveResourceConfig({
  config,
  endpointPath,
}: {
  config: OAuthResourceAuthConfig;
  /** The local path of the MCP endpoint, whose metadata route is served beside the resource's own. */
  endpointPath: string;
}): ResourceSettings {
  const allowInsecureHttp = config.allowInsecureHttp ?? false;
  const resource = checkedUrl({ value: config.resource, what: "resource", allowInsecureHttp });
  if (resource.hash || resource.search || config.resource.includes("#")) {
    throw authConfigError(`resource must have no query or fragment: ${config.resource}`);
  }
  if (!config.authorizationServers?.length) {
    throw authConfigError("at least one authorization server (issuer URL) is required");
  }
  for (const issuer of config.authorizationServers) {
    const url = checkedUrl({ value: issuer, what: "authorization server", allowInsecureHttp });
    if (url.hash || url.search) throw authConfigError(`an issuer has no query or fragment: ${issuer}`);
  }
  const audience = config.audience === undefined ? [config.resource] : [config.audience].flat();
  if (audience.length === 0 || audience.some((aud) => !aud))
    throw authConfigError("audience must name at least one value");
  const requiredScopes = config.requiredScopes ?? [];
  const scopesSupported = config.scopesSupported ?? requiredScopes;
  for (const scope of [...requiredScopes, ...scopesSupported]) {
    if (!SCOPE_TOKEN.test(scope)) throw authConfigError(`not a valid scope: ${JSON.stringify(scope)}`);
  }
  const metadataUrl = protectedResourceMetadataUrl(resource);
  return {
    issuers: [...config.authorizationServers],
    audience,
    requiredScopes,
    algorithms: checkedAlgorithms(config.algorithms ?? ASYMMETRIC_ALGORITHMS),
    clockTolerance: checkedClockTolerance(config.clockToleranceSeconds ?? 30),
    principalClaim: checkedPrincipalClaim(config.principalClaim ?? "sub"),
    ...(config.jwksUrl !== undefined
      ? { jwksUrl: checkedUrl({ value: config.jwksUrl, what: "jwksUrl", allowInsecureHttp }) }
      : {}),
    allowInsecureHttp,
    metadataUrl,
    // The path-suffixed URL is the one RFC 9728 defines for this resource; the bare one is where MCP clients look
    // next, and the local endpoint's own suffix serves a proxy that forwards paths unchanged.
    metadataPaths: new Set([
      new URL(metadataUrl).pathname,
      PROTECTED_RESOURCE_WELL_KNOWN,
      `${PROTECTED_RESOURCE_WELL_KNOWN}${endpointPath}`,
    ]),
    metadata: JSON.stringify({
      resource: config.resource,
      authorization_servers: config.authorizationServers,
      bearer_methods_supported: ["header"],
      ...(scopesSupported.length ? { scopes_supported: scopesSupported } : {}),
      ...(config.resourceName ? { resource_name: config.resourceName } : {}),
    }),
  };
}

/** RFC 9728 §3.1: the well-known path inserted between the host and the resource's path. */
export function protectedResourceMetadataUrl(resource: string | URL): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/** An http(s) URL the config may name: https, or http to loopback (or anywhere with the opt-out). */
function checkedUrl({ value, what, allowInsecureHttp }: { value: string; what: string; allowInsecureHttp: boolean }) {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw authConfigError(`${what} is not a URL: ${value}`);
  }
  if (!isAllowedScheme(url, allowInsecureHttp)) {
    throw authConfigError(`${what} must be https (http only for loopback hosts): ${value}`);
  }
  return url;
}

function checkedAlgorithms(algorithms: string[]): string[] {
  const symmetric = algorithms.filter((alg) => !ASYMMETRIC_ALGORITHMS.includes(alg));
  if (algorithms.length > 0 && symmetric.length === 0) return algorithms;
  throw authConfigError(
    `algorithms must be asymmetric signature algorithms (${ASYMMETRIC_ALGORITHMS.join(", ")})` +
      (symmetric.length ? `; not allowed: ${symmetric.join(", ")}` : ""),
  );
}

function checkedClockTolerance(seconds: number): number {
  if (seconds >= 0 && seconds <= 300) return seconds;
  throw authConfigError("clockToleranceSeconds must be between 0 and 300");
}

function checkedPrincipalClaim(claim: string): string {
  if (SCOPE_TOKEN.test(claim) && !SHARED_CLAIMS.has(claim)) return claim;
  throw authConfigError(
    `principalClaim must name a claim that identifies the caller (sub, client_id, azp, …), not ${JSON.stringify(claim)}`,
  );
}
