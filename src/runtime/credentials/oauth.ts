// OAuth 2.0 client credentials (RFC 6749 §4.4): access tokens fetched from the token URL, cached until shortly
// before they expire, one request shared by every call that needs the same token at the same time, and dropped on
// demand when the API refuses one (the engine's single refresh-and-retry on 401). The client secret and the tokens
// never appear in a message.

import { OpenApiMcpError } from "../../catalog/errors.js";
import { isAllowedScheme } from "../../catalog/url.js";
import type { Dispatcher } from "undici";
import { UpstreamFailure } from "../http/client.js";
import { maskClipped, maskText } from "../secrets/secrets.js";
import {
  type ClientAuthMethod,
  clientSecrets,
  DEFAULT_TOKEN_TIMEOUT_MS,
  postTokenForm,
  type TokenAnswer,
} from "./token-request.js";

export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Sent space-separated as `scope`; none → no `scope` parameter (the server's default). */
  scopes: string[];
  /** Default: the provider's (itself `client_secret_basic` unless set). */
  method?: ClientAuthMethod;
}

export interface AccessToken {
  /** The access token itself: a secret. */
  value: string;
  /** As the server named it (`Bearer`); the header always says `Bearer`. */
  tokenType: string;
  /** When the server says it expires (ms since the epoch, the provider's clock); undefined when it did not say. */
  expiresAt?: number;
  /** When the cache stops handing it out. */
  refreshAt: number;
}

/** What credential application needs from a token source: the provider below, or a stand-in (tests, dry runs). */
export interface TokenSource {
  token(credentials: ClientCredentials, options?: { signal?: AbortSignal }): Promise<AccessToken>;
  /** The API refused this token: stop handing it out, so the next call fetches a fresh one. */
  invalidate(token: string): void;
}

export interface TokenProviderOptions {
  /** Default: the shared keep-alive dispatcher of the HTTP client. */
  dispatcher?: Dispatcher;
  /** Permit http:// token URLs on non-loopback hosts (--allow-insecure-http). */
  allowInsecureHttp?: boolean;
  /** For one token request, redirects included (default 30 s). */
  timeoutMs?: number;
  /** Default `client_secret_basic`. */
  method?: ClientAuthMethod;
  /** How long a token without `expires_in` is used (default 5 minutes). */
  defaultLifetimeMs?: number;
  /** The clock (ms since the epoch); tests inject one. */
  now?: () => number;
}

/** Why no token could be had. The message names the token URL and what went wrong, never a secret. */
export class TokenError extends OpenApiMcpError {
  constructor(
    readonly kind: "insecure" | "http" | "response" | "timeout" | "network" | "cancelled" | "invalid",
    message: string,
    /** The token endpoint's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super({ code: "E_OAUTH_TOKEN", message });
  }
}

export const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;
/** Tokens are refreshed this long before they expire, or 10% of their lifetime early when that is less. */
export const REFRESH_MARGIN_MS = 60_000;
const MAX_DETAIL_CHARS = 200;

interface CacheEntry {
  token?: AccessToken | undefined;
  pending?: Promise<AccessToken> | undefined;
}

export class TokenProvider implements TokenSource {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly now: () => number;

  constructor(private readonly options: TokenProviderOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A token for these client credentials: the cached one while it is fresh, else one fetched now. Concurrent calls
   * for the same (token URL, client, scopes) share a single token request; a caller's `signal` stops its own wait,
   * never the shared request.
   */
  async token(credentials: ClientCredentials, { signal }: { signal?: AbortSignal } = {}): Promise<AccessToken> {
    const key = cacheKey(credentials);
    let entry = this.cache.get(key);
    if (!entry) {
      entry = {};
      this.cache.set(key, entry);
    }
    if (entry.token && this.now() < entry.token.refreshAt) return entry.token;
    let pending = entry.pending;
    if (!pending) {
      const current = entry;
      const fetched = this.request(credentials).then(
        (token) => {
          if (current.pending === fetched) {
            current.pending = undefined;
            current.token = token;
          }
          return token;
        },
        (error: unknown) => {
          if (current.pending === fetched) current.pending = undefined;
          throw error;
        },
      );
      current.pending = fetched;
      // Nobody may be waiting any more (every caller cancelled): the outcome is still handled.
      fetched.catch(() => {});
      pending = fetched;
    }
    return signal ? abortable(pending, signal, credentials.tokenUrl) : pending;
  }

  /** Drops the cached token if it is still this one (a newer token, fetched after another 401, is kept). */
  invalidate(token: string): void {
    for (const entry of this.cache.values()) {
      if (entry.token?.value === token) entry.token = undefined;
    }
  }

  /** Forgets every cached token. */
  clear(): void {
    this.cache.clear();
  }

  /** A new token from the token endpoint, past the cache (the shared cache's holder asks here). */
  async request(credentials: ClientCredentials): Promise<AccessToken> {
    const { tokenUrl, clientId, clientSecret, scopes } = credentials;
    const method = credentials.method ?? this.options.method ?? "client_secret_basic";
    const where = `OAuth 2.0 token request to ${tokenUrl}`;
    const secrets = clientSecrets({ clientId, clientSecret });
    // Every message passes here: what the token endpoint says is masked before it is cut (../secrets/secrets.ts).
    const fail = (kind: TokenError["kind"], message: string, status?: number): TokenError =>
      new TokenError(kind, maskText(message, secrets), status);
    const quote = (text: string): string =>
      maskClipped({ text, secrets, maxChars: MAX_DETAIL_CHARS }).replace(/[\r\n\t]+/g, " ");
    let url: URL;
    try {
      url = new URL(tokenUrl);
    } catch {
      throw fail("invalid", `${where}: the token URL is not a valid URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw fail("invalid", `${where}: the token URL must be https://`);
    if (!isAllowedScheme(url, this.options.allowInsecureHttp === true)) {
      throw fail(
        "insecure",
        `${where} refused: the token URL is plain http to a host that is not loopback, which would send the client secret unencrypted; use https:// (or --allow-insecure-http)`,
      );
    }
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (scopes.length > 0) form.set("scope", scopes.join(" "));
    const started = this.now();
    let response: TokenAnswer;
    try {
      response = await postTokenForm({
        url,
        form,
        client: { clientId, clientSecret, authMethod: method },
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
        timeoutMs: this.options.timeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof UpstreamFailure) {
        const kind =
          error.kind === "timeout"
            ? "timeout"
            : error.kind === "network"
              ? "network"
              : error.kind === "cancelled"
                ? "cancelled"
                : "invalid";
        throw fail(kind, `${where} failed: ${error.message}`);
      }
      throw error;
    }
    const { body } = response;
    if (response.status < 200 || response.status > 299) {
      const code = typeof body?.error === "string" ? body.error : undefined;
      const description = typeof body?.error_description === "string" ? body.error_description : undefined;
      const detail = [code, description].filter(Boolean).join(": ");
      const hint =
        response.status === 401 || code === "invalid_client"
          ? "; check the client id and secret"
          : code === "invalid_scope"
            ? "; check the scopes"
            : "";
      throw fail(
        "http",
        `${where} failed: HTTP ${response.status}${detail ? ` (${quote(detail)})` : ""}${hint}`,
        response.status,
      );
    }
    if (!body)
      throw fail("response", `${where}: the response (HTTP ${response.status}) is not a JSON object`, response.status);
    const value = body.access_token;
    if (typeof value !== "string" || value === "")
      throw fail("response", `${where}: the response has no access_token`, response.status);
    const tokenType = typeof body.token_type === "string" ? body.token_type : "Bearer";
    if (tokenType.toLowerCase() !== "bearer") {
      throw fail(
        "response",
        `${where}: token_type '${quote(tokenType)}' is not supported (only Bearer)`,
        response.status,
      );
    }
    const expiresIn = seconds(body.expires_in);
    // Counted from when the request left: the server's clock started no earlier.
    if (expiresIn === undefined) {
      return { value, tokenType, refreshAt: started + (this.options.defaultLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS) };
    }
    const lifetime = expiresIn * 1000;
    const expiresAt = started + lifetime;
    return { value, tokenType, expiresAt, refreshAt: expiresAt - Math.min(REFRESH_MARGIN_MS, lifetime / 10) };
  }
}

/** Shared by every engine that is given no provider of its own. */
let sharedProvider: TokenProvider | undefined;
export function sharedTokenProvider(): TokenProvider {
  sharedProvider ??= new TokenProvider();
  return sharedProvider;
}

function cacheKey({ tokenUrl, clientId, clientSecret, scopes, method }: ClientCredentials): string {
  // The secret is part of the key (two configurations with one id but different secrets never share a token), as a
  // short fingerprint rather than itself.
  return JSON.stringify([tokenUrl, clientId, fingerprint(clientSecret), [...new Set(scopes)].sort(), method ?? ""]);
}

function fingerprint(text: string): string {
  // FNV-1a, 32 bits, twice with different seeds: a cache key, not a security boundary.
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return `${a.toString(16)}${b.toString(16)}`;
}

export function seconds(value: unknown): number | undefined {
  const number =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

export function abortable<T>(promise: Promise<T>, signal: AbortSignal, tokenUrl: string): Promise<T> {
  const cancelled = (): TokenError => new TokenError("cancelled", `OAuth 2.0 token request to ${tokenUrl}: cancelled`);
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
