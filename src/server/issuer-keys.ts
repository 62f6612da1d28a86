// The signing keys of the authorization servers whose tokens the endpoint accepts: each issuer's JWKS, named in
// config or found through its metadata (issuer-discovery.ts), then fetched and cached by jose's remote key set. A
// failure to find or to fetch keys is remembered for RETRY_MS: meanwhile every request that needs those keys is
// answered 503 at once and nothing is sent to the failing server, so a stream of forged tokens (which need only the
// right `iss` to get this far) cannot turn into a stream of requests to the issuer.

import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import { messageOf } from "../catalog/errors.js";
import { discoverJwksUrl } from "./issuer-discovery.js";
import { AuthUnavailable, Backoff, fetchJsonDocument } from "./issuer-fetch.js";

/** jose's own deadline for a JWKS fetch, the same as ours (issuer-fetch.ts). */
const FETCH_TIMEOUT_MS = 5_000;
/** A token whose key id is not in the cached set makes jose refetch the set at most this often (key rotation). */
const UNKNOWN_KID_COOLDOWN_MS = 30_000;
/** A cached set is refetched once it is this old. */
const CACHE_MAX_AGE_MS = 10 * 60_000;

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
    for (const issuer of issuers) this.keysFor(issuer).catch((error: unknown) => log(`auth: ${messageOf(error)}`));
  }

  /** The key set for an issuer's tokens: the configured JWKS, or the one its metadata names (found once, cached). */
  keysFor(issuer: string): Promise<JWTVerifyGetKey> {
    if (this.explicit) return Promise.resolve(this.explicit);
    const known = this.sets.get(issuer);
    if (known) return known;
    const backoff = this.discoveries.get(issuer) ?? new Backoff();
    this.discoveries.set(issuer, backoff);
    const { allowInsecureHttp } = this;
    const pending = backoff
      .run({ what: `key discovery for ${issuer}`, task: () => discoverJwksUrl({ issuer, allowInsecureHttp }) })
      .then(remoteKeySet);
    this.sets.set(issuer, pending);
    pending.catch(() => this.sets.delete(issuer));
    return pending;
  }
}

/**
 * jose's remote key set (cache, refetch on an unknown key id at most once per cooldown, one fetch at a time), with
 * our fetch behind jose's customFetch: the runtime's bounded send() (issuer-fetch.ts), the answer checked to be a key
 * set, and not attempted again while a recent failure lasts. jose reads only the status and the JSON of what it gets.
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
  const document = await fetchJsonDocument(href);
  if (!document.ok) throw new AuthUnavailable(`JWKS at ${href}: ${document.problem}`);
  const keys = (document.json as { keys?: unknown } | null)?.keys;
  const isObject = (key: unknown) => typeof key === "object" && key !== null && !Array.isArray(key);
  if (!Array.isArray(keys) || !keys.every(isObject)) {
    throw new AuthUnavailable(`JWKS at ${href}: not a JSON Web Key Set (no "keys" array of objects)`);
  }
  return document.json;
}
