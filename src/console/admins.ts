// Who may use the console: a person holding the admin token (`--console-token-env VAR`), or, on a server with OAuth
// endpoint auth, one whose access token carries the admin scope or role. Either is exchanged once, at the login
// form, for a session (sessions.ts); the token itself is never kept or shown.

import { createHash, timingSafeEqual } from "node:crypto";
import type { Caller } from "../runtime/types.js";

/** The scope (in `scope`/`scp`) or role (in `roles`, `realm_access.roles`) that makes an OAuth caller an admin. */
export const ADMIN_SCOPE = "openapi-mcp:admin";
/** Shorter admin tokens are refused at start: they could be guessed. */
export const MIN_ADMIN_TOKEN_CHARS = 16;

/** The person a console session acts for: named on the audit line of every call made from the console. */
export interface Admin {
  /** `admin` for the admin token; the OAuth principal otherwise. */
  who: string;
  how: "token" | "oauth";
  /**
   * When the access token an OAuth admin logged in with expires (ms since the epoch): their session ends then at the
   * latest, and they log in again with a new token, whose scope or role is checked anew.
   */
  until?: number;
}

export class ConsoleAdmins {
  private readonly digest: Buffer | undefined;

  constructor(private readonly options: { adminToken?: string; oauth: boolean }) {
    this.digest = options.adminToken ? sha256(options.adminToken) : undefined;
  }

  /**
   * The admin a token given at the login form names, or undefined. The admin token is compared in constant time
   * (digests of equal length, so neither its length nor a common prefix shows in the timing); any other token is
   * checked as the endpoint's OAuth access token, by `verifyBearer`.
   */
  async admit({
    token,
    verifyBearer,
  }: {
    token: string;
    verifyBearer: (token: string) => Promise<Caller | undefined>;
  }): Promise<Admin | undefined> {
    if (this.digest && timingSafeEqual(sha256(token), this.digest)) return { who: "admin", how: "token" };
    if (!this.options.oauth || token.length === 0) return undefined;
    const caller = await verifyBearer(token);
    if (!caller || !isAdmin(caller.claims)) return undefined;
    // The endpoint requires `exp`; one passed within its clock leeway opens no session (it would already be over).
    const until = Number(caller.claims.exp) * 1000;
    return until > Date.now() ? { who: caller.principal, how: "oauth", until } : undefined;
  }
}

/**
 * Whether verified claims carry the admin scope (`scope`, `scp`) or role (`roles`, Keycloak's `realm_access.roles`),
 * each claim a space-separated text or a list, as the endpoint reads scopes (Azure AD sends `scp` as text).
 */
export function isAdmin(claims: Readonly<Record<string, unknown>>): boolean {
  const realm = claims.realm_access as { roles?: unknown } | undefined;
  const granted = [claims.scope, claims.scp, claims.roles, realm?.roles].flatMap((claim) =>
    typeof claim === "string" ? claim.split(" ") : Array.isArray(claim) ? claim : [],
  );
  return granted.includes(ADMIN_SCOPE);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
