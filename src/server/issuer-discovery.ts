// Where an issuer's signing keys are: the `jwks_uri` of its authorization server metadata (RFC 8414) or OpenID
// configuration, looked for in the order MCP clients try them. A document that is there must name this issuer.

import { isAllowedScheme } from "../catalog/url.js";
import { AuthUnavailable, fetchJsonDocument } from "./issuer-fetch.js";

/** RFC 8414 path insertion, then OpenID Connect discovery (inserted, then appended), as the MCP spec orders them. */
export function metadataCandidates(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
  ];
  if (path) candidates.push(`${url.origin}${path}/.well-known/openid-configuration`);
  return candidates;
}

/** The JWKS URL of an issuer; throws AuthUnavailable when no metadata names a usable one. */
export async function discoverJwksUrl({
  issuer,
  allowInsecureHttp,
}: {
  issuer: string;
  allowInsecureHttp: boolean;
}): Promise<URL> {
  const tried: string[] = [];
  for (const url of metadataCandidates(issuer)) {
    const document = await fetchJsonDocument(url);
    if (document.ok) return jwksUrlOf({ url, metadata: document.json, issuer, allowInsecureHttp });
    // Not here: the next place. A document that is there must be right.
    if (!document.missing) throw new AuthUnavailable(`authorization server metadata at ${url}: ${document.problem}`);
    tried.push(`${url} (${document.problem})`);
  }
  throw new AuthUnavailable(`no authorization server metadata for ${issuer}: tried ${tried.join(", ")}`);
}

function jwksUrlOf({
  url,
  metadata,
  issuer,
  allowInsecureHttp,
}: {
  url: string;
  metadata: unknown;
  issuer: string;
  allowInsecureHttp: boolean;
}): URL {
  const { issuer: named, jwks_uri } = (metadata ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (named !== issuer) {
    throw new AuthUnavailable(
      `authorization server metadata at ${url} names issuer ${JSON.stringify(named)}, not ${issuer}`,
    );
  }
  if (typeof jwks_uri !== "string")
    throw new AuthUnavailable(`authorization server metadata at ${url} has no jwks_uri`);
  const jwksUrl = URL.canParse(jwks_uri) ? new URL(jwks_uri) : undefined;
  if (!jwksUrl || !isAllowedScheme(jwksUrl, allowInsecureHttp)) {
    throw new AuthUnavailable(`${url}: jwks_uri must be an https URL (http only for loopback hosts)`);
  }
  return jwksUrl;
}
