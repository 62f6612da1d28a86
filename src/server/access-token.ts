// A JWT access token checked the RFC 9068 way: issued by an accepted authorization server, signed by one of its keys
// with an accepted algorithm, for this resource, in its validity window, naming its holder. What the client is told
// about a rejected token is enough to act on and nothing about our keys.

import { decodeJwt, errors, type JWTPayload, jwtVerify } from "jose";
import { messageOf } from "../catalog/errors.js";
import { InvalidToken, TokensUnverifiable } from "./auth-refusals.js";
import { AuthUnavailable, RETRY_MS } from "./issuer-fetch.js";
import type { IssuerKeys } from "./issuer-keys.js";
import type { ResourceSettings } from "./resource-config.js";

/** jose error codes that mean the token is bad; the others (timeouts, an unusable JWKS) mean we cannot tell. */
const TOKEN_ERROR_CODES = new Set([
  ...["ERR_JWT_EXPIRED", "ERR_JWT_CLAIM_VALIDATION_FAILED", "ERR_JWT_INVALID", "ERR_JWS_INVALID"],
  ...["ERR_JWS_SIGNATURE_VERIFICATION_FAILED", "ERR_JOSE_ALG_NOT_ALLOWED", "ERR_JOSE_NOT_SUPPORTED"],
  ...["ERR_JWKS_NO_MATCHING_KEY", "ERR_JWKS_MULTIPLE_MATCHING_KEYS"],
]);

/** The issuer a token claims, when it is one we accept: it only picks the key set (jwtVerify then requires it). */
export function claimedIssuer({ token, issuers }: { token: string; issuers: string[] }): string {
  let claimed: unknown;
  try {
    claimed = decodeJwt(token).iss;
  } catch {
    throw new InvalidToken({ description: "The token is not a JWT", reason: "not a JWT" });
  }
  if (typeof claimed === "string" && issuers.includes(claimed)) return claimed;
  throw new InvalidToken({
    description: "The token was not issued by an accepted authorization server",
    reason: "issuer not accepted",
  });
}

/** The claims of a token verified against its issuer's keys; refuses it, or says it cannot be checked right now. */
export async function verifiedClaims({
  token,
  issuer,
  keys,
  settings,
}: {
  token: string;
  issuer: string;
  keys: IssuerKeys;
  settings: ResourceSettings;
}): Promise<JWTPayload> {
  const { audience, algorithms, clockTolerance, principalClaim } = settings;
  try {
    const getKey = await keys.keysFor(issuer);
    const options = { issuer, audience, algorithms, clockTolerance, requiredClaims: ["exp", principalClaim] };
    return (await jwtVerify(token, getKey, options)).payload;
  } catch (error) {
    if (error instanceof errors.JOSEError && TOKEN_ERROR_CODES.has(error.code)) {
      throw new InvalidToken({ description: describeTokenError(error), reason: `${error.code}: ${error.message}` });
    }
    const retryAfterSeconds = error instanceof AuthUnavailable ? error.retryAfterSeconds : RETRY_MS / 1000;
    throw new TokensUnverifiable({ issuer, detail: messageOf(error), retryAfterSeconds });
  }
}

/** jose checks `iat` only together with a maximum token age; a token issued in the future is refused all the same. */
export function checkIssuedAt({ payload, clockTolerance }: { payload: JWTPayload; clockTolerance: number }): void {
  if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + clockTolerance) {
    throw new InvalidToken({ description: "The token was issued in the future (iat)", reason: "iat in the future" });
  }
}

/** Scopes granted by a token: `scope` (space-separated, RFC 9068) or `scp` (an array or a string, as some IdPs do). */
export function grantedScopes(payload: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const claim of [payload.scope, payload.scp]) {
    const values = typeof claim === "string" ? claim.split(" ") : Array.isArray(claim) ? claim : [];
    for (const value of values) if (typeof value === "string" && value) scopes.add(value);
  }
  return [...scopes];
}

function describeTokenError(error: InstanceType<typeof errors.JOSEError>): string {
  if (error instanceof errors.JWTExpired) return "The token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "The token was not issued for this resource";
    if (error.claim === "iss") return "The token was not issued by an accepted authorization server";
    if (error.claim === "nbf") return "The token is not valid yet";
    if (error.reason === "missing") return `The token has no ${error.claim} claim`;
    return `The token's ${error.claim} claim is not valid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return "The token's signature algorithm is not accepted";
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return "The token is malformed";
  return "The token's signature is not valid";
}
