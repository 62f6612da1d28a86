// The signing keys of the authorization servers whose tokens the endpoint accepts: each issuer's JWKS, named in
// config or found through its metadata (RFC 8414 or OpenID discovery), then fetched and cached by jose's remote key
// set. A failure to find or to fetch keys is remembered for RETRY_MS: meanwhile every request that needs those keys
// is answered 503 at once and nothing is sent to the failing server, so a stream of forged tokens (which need only
// the right `iss` to get this far) cannot turn into a stream of requests to the issuer.

import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import { isAllowedScheme } from "../catalog/url.js";

const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** After a failed discovery or JWKS fetch, requests needing it are refused for this long before it is tried again. */
export const RETRY_MS = 10_000;
/** A token whose key id is not in the cached set makes jose refetch the set at most this often (key rotation). */
const UNKNOWN_KID_COOLDOWN_MS = 30_000;
/** A cached set is refetched once it is this old. */
const CACHE_MAX_AGE_MS = 10 * 60_000;

/** Tokens cannot be checked right now (the issuer's metadata or keys are unavailable): try again later. */
export class AuthUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number = RETRY_MS / 1000,
  ) {
    super(message);
  }
}

/** Runs a task unless it failed less than RETRY_MS ago; then it fails at once, with what went wrong last time. */
class Backoff {
  private failure: { at: number; message: string } | undefined;

  async run<T>({ what, task }: { what: string; task: () => Promise<T> }): Promise<T> {
    const left = this.failure ? this.failure.at + RETRY_MS - Date.now() : 0;
    if (this.failure && left > 0) {
      const seconds = Math.ceil(left / 1000);
      throw new AuthUnavailable(
        `${what} failed moments ago (${this.failure.message}); next try in ${seconds} s`,
        seconds,
      );
    }
    try {
      const result = await task();
      this.failure = undefined;
      return result;
    } catch (error) {
      this.failure = { at: Date.now(), message: error instanceof Error ? error.message : String(error) };
      throw error;
    }
  }
}

export class IssuerKeys {
  private readonly explicit: JWTVerifyGetKey | undefined;
  /** Per issuer: its key set, found through discovery (pending or done). */
  private readonly sets = new Map<string, Promise<JWTVerifyGetKey>>();
  private readonly discoveries = new Map<string, Backoff>();
  private readonly allowInsecureHttp: boolean;

  constructor({ jwksUrl, allowInsecureHttp }: { jwksUrl?: URL; allowInsecureHttp: boolean }) {
    this.allowInsecureHttp = allowInsecureHttp;
    this.explicit = jwksUrl && remoteKeySet(jwksUrl);
  }

  /** Starts discovery ahead of the first request; failures go to `log`. */
  warmUp({ issuers, log }: { issuers: string[]; log: (line: string) => void }): void {
    if (this.explicit) return;
    for (const issuer of issuers) {
      this.keysFor(issuer).catch((error: unknown) => log(`auth: ${error instanceof Error ? error.message : error}`));
    }
  }

  /** The key set for an issuer's tokens: the configured JWKS, or the one its metadata names (found once, cached). */
  keysFor(issuer: string): Promise<JWTVerifyGetKey> {
    if (this.explicit) return Promise.resolve(this.explicit);
    const known = this.sets.get(issuer);
    if (known) return known;
    const backoff = this.discoveries.get(issuer) ?? new Backoff();
    this.discoveries.set(issuer, backoff);
    const pending = backoff
      .run({ what: `key discovery for ${issuer}`, task: () => this.discoverJwksUrl(issuer) })
      .then(remoteKeySet);
    this.sets.set(issuer, pending);
    pending.catch(() => this.sets.delete(issuer));
    return pending;
  }

  /** RFC 8414 and OpenID discovery, in the order MCP clients try them; the metadata must name the same issuer. */
  private async discoverJwksUrl(issuer: string): Promise<URL> {
    const tried: string[] = [];
    for (const url of metadataCandidates(issuer)) {
      const response = await fetchJson(url);
      // Not here (or a redirect, which is not followed): the next place. A document that is there must be right.
      if (response.status !== 200) {
        tried.push(`${url} (${response.problem})`);
        continue;
      }
      if (response.json === undefined) {
        throw new AuthUnavailable(`authorization server metadata at ${url}: ${response.problem}`);
      }
      const metadata = response.json as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== issuer) {
        throw new AuthUnavailable(
          `authorization server metadata at ${url} names issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}`,
        );
      }
      if (typeof metadata.jwks_uri !== "string") {
        throw new AuthUnavailable(`authorization server metadata at ${url} has no jwks_uri`);
      }
      const jwksUrl = parseUrl(metadata.jwks_uri);
      if (!jwksUrl || !isAllowedScheme(jwksUrl, this.allowInsecureHttp)) {
        throw new AuthUnavailable(`${url}: jwks_uri must be an https URL (http only for loopback hosts)`);
      }
      return jwksUrl;
    }
    throw new AuthUnavailable(`no authorization server metadata for ${issuer}: tried ${tried.join(", ")}`);
  }
}

/**
 * jose's remote key set (cache, refetch on an unknown key id at most once per cooldown, one fetch at a time), with
 * our fetch: bounded in size, checked to be a key set, and not attempted again while a recent failure lasts.
 */
function remoteKeySet(url: URL): JWTVerifyGetKey {
  const backoff = new Backoff();
  return createRemoteJWKSet(url, {
    timeoutDuration: FETCH_TIMEOUT_MS,
    cooldownDuration: UNKNOWN_KID_COOLDOWN_MS,
    cacheMaxAge: CACHE_MAX_AGE_MS,
    [customFetch]: async (href: string) =>
      Response.json(await backoff.run({ what: `fetching the JWKS at ${href}`, task: () => fetchJwks(href) })),
  });
}

async function fetchJwks(href: string): Promise<unknown> {
  const response = await fetchJson(href);
  if (response.json === undefined) throw new AuthUnavailable(`JWKS at ${href}: ${response.problem}`);
  const keys = (response.json as { keys?: unknown } | null)?.keys;
  const isObject = (key: unknown) => typeof key === "object" && key !== null && !Array.isArray(key);
  if (!Array.isArray(keys) || !keys.every(isObject)) {
    throw new AuthUnavailable(`JWKS at ${href}: not a JSON Web Key Set (no "keys" array of objects)`);
  }
  return response.json;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

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

/** GET a small JSON document: no redirects (each hop would need the https check), a timeout and a size bound. */
async function fetchJson(url: string): Promise<{ status: number; json?: unknown; problem?: string }> {
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: "manual",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new AuthUnavailable(`cannot fetch ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, problem: `HTTP ${response.status}` };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      return { status: 200, problem: `larger than ${MAX_DOCUMENT_BYTES} bytes` };
    }
    chunks.push(value);
  }
  try {
    return { status: 200, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { status: 200, problem: "not JSON" };
  }
}
