// The confirmation step of a sign-in (sign-in-callback.ts): the callback has redeemed the code, and the tokens wait
// for the person to confirm that the account they signed in with should act for the principal the link was made
// for. Until then they are stored nowhere: they travel sealed (AES-256-GCM, under a key derived from the token keys
// for this use only, so a sign-in state is never a confirmation) in the page's form, with the principal, the scheme
// and the state's nonce, for 10 minutes, and one POST uses them up (confirmed or cancelled) through the same used
// nonces as the states, which replicas share in Redis (--state). Any replica with the same keys can finish it.

import { SealedText } from "./sealed-text.js";
import type { TokenKey as EncryptionKey } from "./token-keys.js";
import type { StoredTokens } from "./token-store.js";
import type { UsedNonces } from "../approvals/used-nonces.js";

export interface PendingSignIn {
  principal: string;
  scheme: string;
  tokens: StoredTokens;
  /** The state's nonce: this confirmation is that sign-in's, once. */
  nonce: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Why a confirmation stores nothing. */
export type ConfirmationRefusal = "forged" | "expired" | "replayed" | "unavailable" | "unreachable";

/** A sealed confirmation is a few KiB (the tokens); a form field past this is not read. */
export const MAX_CONFIRMATION_CHARS = 48 * 1024;

export class SignInConfirmations {
  private readonly sealed: SealedText;

  constructor(
    private readonly options: { keys: readonly EncryptionKey[]; usedNonces: UsedNonces; now?: () => number },
  ) {
    this.sealed = new SealedText({ keys: options.keys, purpose: "openapi-mcp sign-in confirmation v1" });
  }

  seal(pending: PendingSignIn): string {
    return this.sealed.seal(pending);
  }

  /** The pending sign-in, once: the second use of a confirmation (confirm or cancel) is `replayed`. */
  async open(sealed: string): Promise<PendingSignIn | { refused: ConfirmationRefusal }> {
    const pending = sealed.length <= MAX_CONFIRMATION_CHARS ? this.decrypt(sealed) : undefined;
    if (!pending) return { refused: "forged" };
    if ((this.options.now ?? Date.now)() >= pending.expiresAt) return { refused: "expired" };
    const added = await this.options.usedNonces.add(`confirm:${pending.nonce}`, pending.expiresAt);
    if (added === "added") return pending;
    return { refused: added === "used" ? "replayed" : added === "full" ? "unavailable" : "unreachable" };
  }

  private decrypt(sealed: string): PendingSignIn | undefined {
    const pending = (this.sealed.open(sealed) ?? {}) as Partial<PendingSignIn>;
    const texts = [pending.principal, pending.scheme, pending.nonce, pending.tokens?.accessToken];
    return texts.every((t) => typeof t === "string") && typeof pending.expiresAt === "number"
      ? (pending as PendingSignIn)
      : undefined;
  }
}
