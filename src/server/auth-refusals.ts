// Why a request to the MCP endpoint is refused: error classes the checks throw, and their HTTP answer decided in one
// place (refusalAnswer): the status, the RFC 6750 challenge, the JSON-RPC message and the line for the log. Nothing
// here ever holds the caller's token.

import { STATUS_CODES } from "node:http";

/** A refusal's answer: `message` is for the JSON-RPC error body, `reason` for the log. */
export interface RefusalAnswer {
  status: 400 | 401 | 403 | 503;
  headers: Record<string, string>;
  message: string;
  reason: string;
}

/** What a mode adds to its challenges: the scope it requires and where its RFC 9728 metadata is (OAuth only). */
export interface ChallengeContext {
  scope?: string;
  resourceMetadata?: string;
}

/** A refused request; `message` is what the client is told (after the status text), `reason` what the log says. */
abstract class Refusal extends Error {
  abstract readonly kind: string;
  constructor(
    message: string,
    readonly reason: string = message,
  ) {
    super(message);
  }
}

/** An Authorization header that names the Bearer scheme but carries no usable token. */
export class MalformedAuthorization extends Refusal {
  readonly kind = "malformed";
  constructor() {
    super("malformed Authorization header");
  }
}

/** No bearer token at all (no header, or another scheme). */
export class MissingToken extends Refusal {
  readonly kind = "missing";
  constructor() {
    super("a bearer token is required", "no bearer token");
  }
}

/** A token that is not accepted; `description` goes into the challenge's `error_description`. */
export class InvalidToken extends Refusal {
  readonly kind = "invalid";
  readonly description: string;
  constructor({ description, reason, message }: { description: string; reason?: string; message?: string }) {
    super(message ?? description, reason ?? description);
    this.description = description;
  }
}

/** A valid token without every scope the endpoint requires. */
export class InsufficientScope extends Refusal {
  readonly kind = "insufficient_scope";
  constructor(missing: string[]) {
    super(`the token lacks the scope ${missing.join(" ")}`, `missing scope ${missing.join(" ")}`);
  }
}

/** Tokens cannot be checked right now (the issuer's keys are out of reach): the client may try again later. */
export class TokensUnverifiable extends Refusal {
  readonly kind = "unverifiable";
  readonly retryAfterSeconds: number;
  constructor({ issuer, detail, retryAfterSeconds }: { issuer: string; detail: string; retryAfterSeconds: number }) {
    super("cannot verify access tokens right now", `cannot verify tokens from ${issuer}: ${detail}`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export type AuthRefusal = MalformedAuthorization | MissingToken | InvalidToken | InsufficientScope | TokensUnverifiable;

export function isAuthRefusal(error: unknown): error is AuthRefusal {
  return error instanceof Refusal;
}

/** The one mapping of refusals to HTTP (RFC 6750 §3.1 for the challenges). */
export function refusalAnswer(refusal: AuthRefusal, { scope, resourceMetadata }: ChallengeContext = {}): RefusalAnswer {
  const where = { scope, resource_metadata: resourceMetadata };
  const answer = (status: RefusalAnswer["status"], headers: Record<string, string>): RefusalAnswer => ({
    status,
    headers,
    message: `${STATUS_CODES[status]}: ${refusal.message}`,
    reason: refusal.reason,
  });
  const challenge = (params: Record<string, string | undefined>) => ({ "www-authenticate": bearerChallenge(params) });
  switch (refusal.kind) {
    case "malformed":
      return answer(
        400,
        challenge({
          error: "invalid_request",
          error_description: "Malformed Authorization header",
          resource_metadata: resourceMetadata,
        }),
      );
    case "missing":
      return answer(401, challenge(where));
    case "invalid":
      return answer(401, challenge({ error: "invalid_token", error_description: refusal.description, ...where }));
    case "insufficient_scope":
      return answer(
        403,
        challenge({ error: "insufficient_scope", error_description: "The token lacks a required scope", ...where }),
      );
    case "unverifiable":
      return answer(503, { "retry-after": String(refusal.retryAfterSeconds) });
  }
}

/** `Bearer` with RFC 6750 parameters; values are our own (URLs, scope tokens, fixed texts), never the caller's. */
export function bearerChallenge(params: Record<string, string | undefined> = {}): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${value.replace(/["\\]/g, "")}"`);
  return parts.length ? `Bearer ${parts.join(", ")}` : "Bearer";
}
