// Which account at the provider a sign-in obtained, to name it on the confirmation page (sign-in-callback.ts): the
// OpenID Connect ID token's claims, or the access token's when it is a JWT (as many providers issue). Read for
// display only, never trusted for anything else: they came straight from the provider's token endpoint, which this
// server asked itself. Undefined when neither says (an opaque token, as GitHub's): the page then names the provider.

/** The claims that name a person, most readable first. */
const NAMING_CLAIMS = ["preferred_username", "login", "email", "upn", "name", "sub"];
/** A name longer than this is cut: the page shows it, and a token can say anything. */
const MAX_ACCOUNT_CHARS = 120;

export function accountOf({ accessToken, idToken }: { accessToken: string; idToken?: string }): string | undefined {
  for (const token of [idToken, accessToken]) {
    const claims = token === undefined ? undefined : jwtClaims(token);
    if (!claims) continue;
    for (const claim of NAMING_CLAIMS) {
      const value = claims[claim];
      if (typeof value === "string" && value.trim() !== "") return clip(value.trim());
    }
  }
  return undefined;
}

function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[1]!.length > 16_384) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    return claims !== null && typeof claims === "object" && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Printable, and short. */
function clip(text: string): string {
  const printable = text.replace(/[\p{Cc}\p{Cf}]/gu, "?");
  return printable.length > MAX_ACCOUNT_CHARS ? `${printable.slice(0, MAX_ACCOUNT_CHARS)}…` : printable;
}
