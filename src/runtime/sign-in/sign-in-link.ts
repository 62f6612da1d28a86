// The link a user signs in through (RFC 6749 §4.1.1 with RFC 7636's S256 challenge), and the wait for that sign-in
// to finish. The link carries a sealed state (oauth-state.ts) holding the PKCE verifier; the wait ends when the
// callback stored tokens for the principal in this process, or, looked up in the store every second, in another
// (a replica behind the same load balancer, sharing the store through Redis).

import { createHash, randomBytes } from "node:crypto";
import type { EventEmitter } from "node:events";
import type { SignInStates } from "./oauth-state.js";
import type { StoredTokens, TokenKey, TokenStore } from "./token-store.js";

/** How long a sign-in link stays valid, and the longest a call waits for the user to finish signing in. */
export const SIGN_IN_LIFETIME_MS = 10 * 60_000;
/** How often a waiting call looks for a sign-in another process finished (one read of the store). */
const POLL_MS = 1_000;

export function authorizationLink({
  config,
  states,
  principal,
  scopes,
  now,
}: {
  config: { scheme: string; clientId: string; redirectUrl: string; authorizationUrl: string };
  states: SignInStates;
  principal: string;
  scopes: string[];
  now: number;
}): string {
  const verifier = randomBytes(32).toString("base64url");
  const state = states.seal({
    principal,
    scheme: config.scheme,
    verifier,
    nonce: randomBytes(16).toString("base64url"),
    expiresAt: now + SIGN_IN_LIFETIME_MS,
  });
  const url = new URL(config.authorizationUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("redirect_uri", config.redirectUrl);
  if (scopes.length > 0) url.searchParams.set("scope", scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
  url.searchParams.set("code_challenge_method", "S256");
  return url.href;
}

/**
 * True once `signedIn` holds for the principal's stored tokens: at once if it does already (a client may finish
 * the sign-in before it answers), else when `events` emits the principal or the store has them (another process
 * finished it), else at the timeout or the signal.
 */
export function waitForSignIn({
  events,
  store,
  key,
  signedIn,
  signal,
  timeoutMs = SIGN_IN_LIFETIME_MS,
}: {
  events: EventEmitter;
  store: TokenStore;
  key: TokenKey;
  signedIn: (tokens: StoredTokens | undefined) => boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearInterval(poll);
      events.off(key.principal, done);
      signal?.removeEventListener("abort", done);
      void store.get(key).then(
        (tokens) => resolve(signedIn(tokens)),
        () => resolve(false),
      );
    };
    const look = (): void =>
      void store.get(key).then(
        (tokens) => signedIn(tokens) && done(),
        () => {},
      );
    const timer = setTimeout(done, Math.min(timeoutMs, SIGN_IN_LIFETIME_MS));
    const poll = setInterval(look, POLL_MS);
    events.on(key.principal, done);
    signal?.addEventListener("abort", done, { once: true });
    look();
  });
}
