// What endpoint auth answers and how each of its modes (static-tokens.ts, protected-resource.ts) plugs in: the
// principal a request was made by, the result of a check, the endpoint's auth as the HTTP server uses it.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChallengeContext, RefusalAnswer } from "./auth-refusals.js";

/** Who a request was made by, once its token is accepted. Never holds the token. */
export interface Principal {
  /** Stable per caller: a session is bound to the principal that opened it. */
  key: string;
  /** What profiles match on: a JWT's verified payload; for a static token, which one it is. */
  claims: Record<string, unknown>;
  issuer?: string;
  subject?: string;
  clientId?: string;
  scopes: string[];
}

/** An accepted request: its caller, and the token itself, kept only for an RFC 8693 exchange (types.ts, Caller). */
export type AuthResult = { ok: true; principal: Principal; token: string } | ({ ok: false } & RefusalAnswer);

export interface EndpointAuth {
  /** Checks a request to the MCP endpoint; on success the Authorization header is removed from `req`. */
  authenticate(req: IncomingMessage): Promise<AuthResult>;
  /** Answers the public routes auth adds (the protected-resource metadata); false when `path` is not one of them. */
  servePublic({ req, res, path }: { req: IncomingMessage; res: ServerResponse; path: string }): boolean;
  /** Starts what can be started ahead of the first request (key discovery); failures are logged, not thrown. */
  warmUp(): void;
}

/** One way of authenticating: who made a request, or the refusal (auth-refusals.ts) of the first check it fails. */
export interface AuthMode extends Omit<EndpointAuth, "authenticate"> {
  verify(req: IncomingMessage): Promise<Principal>;
  /** What the mode's challenges say beside the error (RFC 6750 §3). */
  readonly challenge: ChallengeContext;
}
