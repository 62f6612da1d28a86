// The `state` of a user's sign-in (OAuth 2.0 authorization code with PKCE): it goes to the provider in the
// authorization URL and comes back on the redirect to our callback. It carries what finishing the sign-in needs
// (whose sign-in, which scheme, the PKCE verifier, a nonce, an expiry) sealed with AES-256-GCM under a key derived
// from the token keys, so nobody can read the verifier, forge one, or change whom it is for; any replica with the
// same keys can finish it, and each is accepted once (used-nonces.ts).

import { SealedText } from "./sealed-text.js";
import type { TokenKey as EncryptionKey } from "./token-keys.js";
import type { UsedNonces } from "../approvals/used-nonces.js";

export interface SignInClaims {
  principal: string;
  scheme: string;
  /** The PKCE code verifier (RFC 7636): only the holder of this state can redeem the code. */
  verifier: string;
  nonce: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Why a state finishes no sign-in: forged (or damaged), expired, or used before. */
export type SignInRefusal = "forged" | "expired" | "replayed" | "unavailable" | "unreachable";

/** States longer than this are not read (ours are a few hundred characters). */
const MAX_STATE_CHARS = 4096;

export class SignInStates {
  private readonly sealed: SealedText;

  constructor(
    private readonly options: {
      keys: readonly EncryptionKey[];
      usedNonces: UsedNonces;
      now?: () => number;
    },
  ) {
    // Derived, so the key that encrypts stored tokens is never used for anything else.
    this.sealed = new SealedText({ keys: options.keys, purpose: "openapi-mcp sign-in state v1" });
  }

  seal(claims: SignInClaims): string {
    return this.sealed.seal(claims);
  }

  /** The claims of a state, once: a second use of the same state is `replayed`. */
  async open(state: string): Promise<SignInClaims | { refused: SignInRefusal }> {
    const claims = state.length <= MAX_STATE_CHARS ? this.decrypt(state) : undefined;
    if (!claims) return { refused: "forged" };
    if ((this.options.now ?? Date.now)() >= claims.expiresAt) return { refused: "expired" };
    const added = await this.options.usedNonces.add(claims.nonce, claims.expiresAt);
    if (added === "used") return { refused: "replayed" };
    if (added === "full") return { refused: "unavailable" };
    if (added === "unreachable") return { refused: "unreachable" };
    return claims;
  }

  private decrypt(state: string): SignInClaims | undefined {
    const claims = (this.sealed.open(state) ?? {}) as Partial<SignInClaims>;
    const texts = [claims.principal, claims.scheme, claims.verifier, claims.nonce];
    return texts.every((t) => typeof t === "string") && typeof claims.expiresAt === "number"
      ? (claims as SignInClaims)
      : undefined;
  }
}
