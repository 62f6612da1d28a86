// The exchanged per-user mode (RFC 8693): the caller's verified MCP access token is exchanged at the identity
// provider for an upstream token with the configured audience and scopes, cached per principal until shortly before
// it expires (as oauth.ts caches client-credentials tokens); with Redis (--state and a state secret), cached for
// every replica instead (shared/shared-exchanges.ts), so a principal is exchanged once across them. The MCP token
// itself never goes upstream; a refused exchange ends the call with what the provider said, and nothing is sent.
// Secrets never appear in a message.

import { isAllowedScheme } from "../../catalog/url.js";
import type { Dispatcher } from "undici";
import { UpstreamFailure } from "../http/client.js";
import { DEFAULT_TOKEN_LIFETIME_MS, REFRESH_MARGIN_MS, seconds } from "./oauth.js";
import { maskClipped } from "../secrets/secrets.js";
import type { SharedExchanges } from "../shared/shared-exchanges.js";
import { clientSecrets, DEFAULT_TOKEN_TIMEOUT_MS, postTokenForm, type TokenAnswer } from "./token-request.js";
import type { Caller } from "../types.js";
import type { UserCredentials, UserValue } from "./user-credentials.js";

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

export interface TokenExchangeConfig {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  audience?: string;
  resource?: string;
  /** Sent as `scope`; none → the operation's scopes, if it names any. */
  scopes: string[];
  authMethod: "client_secret_basic" | "client_secret_post";
  subjectTokenType: string;
  requestedTokenType?: string;
  /** The scheme's name, for messages. */
  scheme: string;
}

export interface TokenExchangeOptions {
  dispatcher?: Dispatcher;
  allowInsecureHttp?: boolean;
  timeoutMs?: number;
  now?: () => number;
  /** Principals whose tokens are kept; the oldest go first past it. */
  maxEntries?: number;
  /** The replicas' shared cache (Redis); without it, this process's own. */
  shared?: SharedExchanges;
}

interface Issued {
  value: string;
  refreshAt: number;
}

interface Entry {
  principal: string;
  issued?: Issued | undefined;
  pending?: Promise<Issued> | undefined;
  /** The shared entry `issued` was read as (its Redis key and sealed value), for `invalidate`. */
  shared?: { name: string; sealed: string } | undefined;
}

const MAX_DETAIL_CHARS = 200;
const DEFAULT_MAX_ENTRIES = 10_000;

/** Why no token could be had, already worded for the caller. */
class ExchangeFailed extends Error {}

export class TokenExchange implements UserCredentials {
  readonly mode = "exchange";
  readonly description: string;
  private readonly cache = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(
    private readonly config: TokenExchangeConfig,
    private readonly options: TokenExchangeOptions = {},
  ) {
    this.description = `exchanged for each caller's MCP access token at ${config.tokenUrl} (RFC 8693)`;
    this.now = options.now ?? Date.now;
  }

  async valueFor({ caller, scopes }: { caller: Caller | undefined; scopes: string[] }): Promise<UserValue> {
    // Only a token the server verified against an issuer is exchanged: a static token is this server's own secret.
    if (!caller?.accessToken || typeof caller.claims.iss !== "string")
      return {
        missing: `its credential (security scheme '${this.config.scheme}') is ${this.description}, and this call came without one: call over HTTP with an OAuth access token (serve --transport http --auth oauth).`,
      };
    const requested = [...new Set(this.config.scopes.length > 0 ? this.config.scopes : scopes)].sort();
    const key = JSON.stringify([caller.principal, requested]);
    let entry = this.cache.get(key);
    // With a shared cache, Redis is read on every call (one GET), so a token another replica dropped is not used.
    const local = !this.options.shared?.usable;
    if (local && entry?.issued && this.now() < entry.issued.refreshAt) return { value: entry.issued.value };
    if (!entry) {
      entry = { principal: caller.principal };
      this.cache.set(key, entry);
      this.evict();
    }
    const current = entry;
    // Calls of one principal at the same time share one exchange (or one read of the shared cache).
    const subject = { token: caller.accessToken, issuer: caller.claims.iss, principal: caller.principal };
    if (!current.pending) {
      const started: Promise<Issued> = this.obtain({ entry: current, subject, scopes: requested }).finally(() => {
        // A 401 may have let a newer one start meanwhile.
        if (current.pending === started) current.pending = undefined;
      });
      current.pending = started;
    }
    try {
      current.issued = await current.pending;
      return { value: current.issued.value };
    } catch (error) {
      if (error instanceof ExchangeFailed) return { missing: error.message };
      throw error;
    }
  }

  /** The API refused this token: the next call of that principal exchanges again, on every replica. */
  invalidate({ caller, value }: { caller: Caller; value: string }): void {
    for (const entry of this.cache.values()) {
      if (entry.principal !== caller.principal || entry.issued?.value !== value) continue;
      entry.issued = undefined;
      // Sent before this replica's next read on the same connection, so the retry does not read the refused token.
      if (entry.shared) this.options.shared?.drop(entry.shared);
      entry.shared = undefined;
      // A call from now on reads again rather than join a read that may return this token.
      entry.pending = undefined;
    }
  }

  /** From the shared cache (exchanging there when it has none), or, without one or while Redis is lost, here. */
  private async obtain({
    entry,
    subject,
    scopes,
  }: {
    entry: Entry;
    subject: { token: string; issuer: string; principal: string };
    scopes: string[];
  }): Promise<Issued> {
    const shared = this.options.shared;
    if (shared?.usable) {
      const { tokenUrl, clientId, audience, resource, requestedTokenType } = this.config;
      const key = shared.name([
        tokenUrl,
        clientId,
        audience,
        resource,
        requestedTokenType,
        subject.issuer,
        subject.principal,
        scopes,
      ]);
      const found = await shared.getOrFetch({
        name: key,
        timeoutMs: this.options.timeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS,
        fetch: async () => {
          const issued = await this.exchange(subject.token, scopes);
          return { text: JSON.stringify(issued), ttlMs: issued.refreshAt - this.now() };
        },
      });
      if (found) {
        entry.shared = { name: key, sealed: found.sealed };
        return JSON.parse(found.text) as Issued;
      }
      // Redis lost: a token this replica already holds serves until it is due, as without Redis.
      if (entry.issued && this.now() < entry.issued.refreshAt) return entry.issued;
    }
    return this.exchange(subject.token, scopes);
  }

  private evict(): void {
    const max = this.options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    for (const key of this.cache.keys()) {
      if (this.cache.size <= max) break;
      this.cache.delete(key);
    }
  }

  private async exchange(subjectToken: string, scopes: string[]): Promise<Issued> {
    const { tokenUrl, clientId, clientSecret } = this.config;
    const where = `the token exchange at ${tokenUrl}`;
    const client = { clientId, clientSecret, authMethod: this.config.authMethod };
    const secrets = [subjectToken, ...clientSecrets(client)];
    const quote = (text: string): string =>
      maskClipped({ text, secrets, maxChars: MAX_DETAIL_CHARS }).replace(/[\r\n\t]+/g, " ");
    const url = new URL(tokenUrl);
    if (!isAllowedScheme(url, this.options.allowInsecureHttp === true))
      throw new ExchangeFailed(
        `${where} is plain http to a host that is not loopback; use https:// (or --allow-insecure-http).`,
      );
    const started = this.now();
    let response: TokenAnswer;
    try {
      response = await postTokenForm({
        url,
        form: this.form(subjectToken, scopes),
        client,
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
        timeoutMs: this.options.timeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof UpstreamFailure) throw new ExchangeFailed(`${where} failed: ${quote(error.message)}.`);
      throw error;
    }
    const { body } = response;
    if (response.status < 200 || response.status > 299) {
      const detail = [body?.error, body?.error_description].filter((part) => typeof part === "string").join(": ");
      const hint =
        response.status === 401 || body?.error === "invalid_client"
          ? "; whoever runs this server should check its client id and secret"
          : "";
      throw new ExchangeFailed(
        `${where} refused it: HTTP ${response.status}${detail ? ` (${quote(detail)})` : ""}${hint}.`,
      );
    }
    const value = body?.access_token;
    if (typeof value !== "string" || value === "")
      throw new ExchangeFailed(`${where} answered HTTP ${response.status} without an access_token.`);
    const tokenType = typeof body?.token_type === "string" ? body.token_type.toLowerCase() : "bearer";
    if (tokenType !== "bearer" && tokenType !== "n_a")
      throw new ExchangeFailed(`${where} issued a token of type '${quote(tokenType)}' (only Bearer is supported).`);
    const expiresIn = seconds(body?.expires_in);
    if (expiresIn === undefined) return { value, refreshAt: started + DEFAULT_TOKEN_LIFETIME_MS };
    const lifetime = expiresIn * 1000;
    return { value, refreshAt: started + lifetime - Math.min(REFRESH_MARGIN_MS, lifetime / 10) };
  }

  private form(subjectToken: string, scopes: string[]): URLSearchParams {
    const { audience, resource, requestedTokenType, subjectTokenType } = this.config;
    const form = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: subjectToken,
      subject_token_type: subjectTokenType,
    });
    if (audience !== undefined) form.set("audience", audience);
    if (resource !== undefined) form.set("resource", resource);
    if (scopes.length > 0) form.set("scope", scopes.join(" "));
    if (requestedTokenType !== undefined) form.set("requested_token_type", requestedTokenType);
    return form;
  }
}
