// The caller's bearer token, read from the Authorization header (RFC 6750 §2.1; never from the query or the body),
// and removed from the request once it did its job.

import type { IncomingMessage } from "node:http";
import { MalformedAuthorization, MissingToken } from "./auth-refusals.js";

/** What follows `Bearer ` in a well-formed header: visible ASCII, no spaces (RFC 6750 b64token, leniently). */
export const TOKEN_CHARS = /^[\x21-\x7e]+$/;

/** The bearer token of an Authorization header: absent (none, or another scheme), malformed, or the token. */
export function parseAuthorization(header: string | undefined): { token?: string; malformed?: true } {
  if (header === undefined) return {};
  const match = /^bearer(?:[ \t]+(.*))?$/is.exec(header.trim());
  if (!match) return {};
  const token = match[1]?.trim();
  if (!token || !TOKEN_CHARS.test(token)) return { malformed: true };
  return { token };
}

/** The request's bearer token; throws MalformedAuthorization or MissingToken where there is none to check. */
export function bearerToken(req: IncomingMessage): string {
  const { token, malformed } = parseAuthorization(req.headers.authorization);
  if (malformed) throw new MalformedAuthorization();
  if (token === undefined) throw new MissingToken();
  return token;
}

/** Removes the caller's credentials from a request once they did their job, so nothing downstream can reuse them. */
export function stripAuthorization(req: IncomingMessage): void {
  delete req.headers.authorization;
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i]?.toLowerCase() === "authorization") raw.splice(i, 2);
}
