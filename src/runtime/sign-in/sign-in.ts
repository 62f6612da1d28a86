// Signed in per user (OAuth 2.0 authorization code with PKCE, RFC 6749 §4.1 and RFC 7636): a scheme's value is the
// access token each user obtained by signing in at the API's provider. A caller without one is given the URL to
// sign in at (the binding asks through URL elicitation, or the error result says it); the provider redirects to
// this server's callback (sign-in-callback.ts), which exchanges the code and, once the person confirms which
// principal the account will act for, keeps the tokens per principal in the token store, encrypted. Tokens are refreshed shortly before they expire; a refresh the provider refuses means
// signing in again. Nothing is sent upstream for a caller who has not signed in.

import { EventEmitter } from "node:events";
import { messageOf } from "../../catalog/errors.js";
import { accountOf } from "./sign-in-account.js";
import { authorizationLink, waitForSignIn } from "./sign-in-link.js";
import type { SignInStates } from "./oauth-state.js";
import { type GrantClient, GrantError, requestTokens, revokeToken } from "./token-grant.js";
import type { StoredTokens, TokenStore } from "./token-store.js";
import type { Caller } from "../types.js";
import type { SignInPrompt } from "../credentials/sign-in-prompt.js";
import type { UserCredentials, UserValue } from "../credentials/user-credentials.js";

export interface SignInConfig extends GrantClient {
  /** The catalog's id of the scheme, and its name for messages. */
  scheme: string;
  name: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl?: string;
  /** Where the provider sends the user back: this server's callback (sign-in-callback.ts). */
  redirectUrl: string;
  /** Asked for at sign-in; none: the operation's own scopes. */
  scopes?: string[];
}

/** Tokens are refreshed this long before they expire. */
const REFRESH_MARGIN_MS = 60_000;

export class SignIn implements UserCredentials {
  readonly mode = "signIn" as const;
  readonly description: string;
  /** Emits the principal's key when its tokens were stored, to wake calls waiting for that sign-in. */
  private readonly signedIn = new EventEmitter().setMaxListeners(0);
  private readonly refreshing = new Map<string, Promise<StoredTokens | undefined>>();
  /** Access tokens the API answered 401 to: refreshed at the next call (bounded: cleared when it grows large). */
  private readonly refused = new Set<string>();

  constructor(
    readonly config: SignInConfig,
    private readonly parts: { store: TokenStore; states: SignInStates; now?: () => number },
  ) {
    this.description = `each user signs in at ${new URL(config.authorizationUrl).origin} (OAuth 2.0 authorization code with PKCE)`;
  }

  private now(): number {
    return (this.parts.now ?? Date.now)();
  }

  async valueFor({ caller, scopes }: { caller: Caller | undefined; scopes: string[] }): Promise<UserValue> {
    const { name } = this.config;
    if (!caller)
      return {
        missing: `${name} needs each user to sign in, and this server does not know who is calling (serve over HTTP with endpoint auth, --auth).`,
      };
    const key = { principal: caller.principal, scheme: this.config.scheme };
    let tokens: StoredTokens | undefined;
    try {
      tokens = await this.parts.store.get(key);
    } catch (error) {
      return { missing: `the stored sign-in cannot be read: ${messageOf(error)}.` };
    }
    let expired = false;
    if (tokens && !this.fresh(tokens)) {
      tokens = tokens.refreshToken ? await this.refresh(caller.principal, tokens) : undefined;
      expired = tokens === undefined;
    }
    if (tokens) return { value: tokens.accessToken };
    return this.askToSignIn({ principal: caller.principal, scopes, expired });
  }

  /** The API refused this access token: at once it counts as expired, so the retry refreshes it (or asks to sign in). */
  invalidate({ value }: { caller: Caller; value: string }): void {
    if (this.refused.size >= 10_000) this.refused.clear();
    this.refused.add(value);
  }

  /**
   * The tokens a callback's code is worth (redeemed with its state's PKCE verifier), and the provider account they
   * act as where the provider says (sign-in-account.ts): kept nowhere yet, until the person confirms.
   */
  async redeem({ code, verifier }: { code: string; verifier: string }): Promise<{
    tokens: StoredTokens;
    account?: string;
  }> {
    const { tokenUrl, redirectUrl, clientId } = this.config;
    const { idToken, ...tokens } = await requestTokens({
      url: tokenUrl,
      form: {
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUrl,
        code_verifier: verifier,
        client_id: clientId,
      },
      client: this.config,
      now: this.now(),
    });
    const account = accountOf({ accessToken: tokens.accessToken, ...(idToken ? { idToken } : {}) });
    return { tokens, ...(account ? { account } : {}) };
  }

  /** Confirmed: the tokens stored for the principal the link was made for, and calls waiting for it woken. */
  async keep({ principal, tokens }: { principal: string; tokens: StoredTokens }): Promise<void> {
    await this.parts.store.put({ principal, scheme: this.config.scheme, tokens });
    this.signedIn.emit(principal);
  }

  /** Not confirmed: the tokens are revoked where the provider has a revocation endpoint (best effort). */
  async discard(tokens: StoredTokens): Promise<void> {
    await this.revoke(tokens);
  }

  /** Drops the principal's tokens, revoking them at the provider when it has a revocation endpoint. True if any. */
  async signOut(principal: string): Promise<boolean> {
    const key = { principal, scheme: this.config.scheme };
    const tokens = await this.parts.store.get(key).catch(() => undefined);
    const found = await this.parts.store.delete(key);
    if (tokens) await this.revoke(tokens);
    return found;
  }

  private async revoke(tokens: StoredTokens): Promise<void> {
    const { revocationUrl } = this.config;
    if (!revocationUrl) return;
    const revoke = (token: string, hint: "access_token" | "refresh_token") =>
      revokeToken({ url: revocationUrl, token, hint, client: this.config }).catch(() => {});
    if (tokens.refreshToken) await revoke(tokens.refreshToken, "refresh_token");
    await revoke(tokens.accessToken, "access_token");
  }

  /** A fresh access token for these tokens, stored; undefined when the provider refused the refresh token. */
  private refresh(principal: string, tokens: StoredTokens): Promise<StoredTokens | undefined> {
    const running = this.refreshing.get(principal);
    if (running) return running;
    const key = { principal, scheme: this.config.scheme };
    const started = (async () => {
      try {
        const { idToken: _id, ...fresh } = await requestTokens({
          url: this.config.tokenUrl,
          form: { grant_type: "refresh_token", refresh_token: tokens.refreshToken ?? "" },
          client: this.config,
          now: this.now(),
        });
        // A provider that does not rotate refresh tokens answers without one: the old one stays good.
        const kept = {
          ...fresh,
          ...(fresh.refreshToken || !tokens.refreshToken ? {} : { refreshToken: tokens.refreshToken }),
        };
        await this.parts.store.put({ ...key, tokens: kept });
        return kept;
      } catch (error) {
        if (!(error instanceof GrantError) || !error.refused) throw error;
        await this.parts.store.delete(key);
        return undefined;
      } finally {
        this.refreshing.delete(principal);
      }
    })();
    this.refreshing.set(principal, started);
    return started;
  }

  private askToSignIn({
    principal,
    scopes,
    expired,
  }: {
    principal: string;
    scopes: string[];
    expired: boolean;
  }): UserValue {
    const { name } = this.config;
    const since = this.now();
    const url = authorizationLink({
      config: this.config,
      states: this.parts.states,
      principal,
      scopes: this.config.scopes ?? scopes,
      now: since,
    });
    const why = expired ? `Your sign-in to ${name} has expired` : `You have not signed in to ${name} yet`;
    const key = { principal, scheme: this.config.scheme };
    // Tokens obtained since the link was made: a sign-in through it (or another) has finished.
    const signedIn = (tokens: StoredTokens | undefined): boolean =>
      tokens !== undefined && (tokens.obtainedAt === undefined ? this.fresh(tokens) : tokens.obtainedAt >= since);
    const prompt: SignInPrompt = {
      url,
      message: `Sign in to ${name} to continue: this call acts as you there.`,
      completed: (options) =>
        waitForSignIn({ events: this.signedIn, store: this.parts.store, key, signedIn, ...options }),
    };
    return {
      missing: `${why}. Open this link and sign in; the link is valid for 10 minutes: ${url} Then call again.`,
      signIn: prompt,
    };
  }

  /** Usable now: not refused by the API, and not within a tenth of its lifetime (at most a minute) of expiring. */
  private fresh(tokens: StoredTokens | undefined): boolean {
    if (tokens === undefined || this.refused.has(tokens.accessToken)) return false;
    const { expiresAt, obtainedAt } = tokens;
    if (expiresAt === undefined) return true;
    const lifetime = obtainedAt !== undefined ? expiresAt - obtainedAt : Number.POSITIVE_INFINITY;
    return this.now() < expiresAt - Math.min(REFRESH_MARGIN_MS, lifetime / 10);
  }
}
