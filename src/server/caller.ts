// The verified caller, from endpoint auth to the handlers of either protocol era: it rides in the SDK's AuthInfo
// (the only per-request slot both eras hand to handlers) and becomes the engine's Caller (runtime/types.ts).

import type { IncomingMessage } from "node:http";
import type { AuthInfo, ServerContext } from "@modelcontextprotocol/server";
import type { Caller } from "../runtime/types.js";
import type { Principal } from "./auth-mode.js";

/** Where the caller rides in AuthInfo's `extra`. */
const CALLER = "openapi-mcp/caller";

/** The engine's view of an accepted request: who, what they claim, their token (for exchange), their headers. */
export function callerOf({
  req,
  principal,
  token,
}: {
  req: IncomingMessage;
  principal: Principal;
  token: string;
}): Caller {
  const headers: Record<string, string> = {};
  // Node joins repeated headers already, except set-cookie (an array), which a request does not carry.
  for (const [name, value] of Object.entries(req.headers)) {
    if (name !== "authorization" && value !== undefined)
      headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { principal: principal.key, claims: principal.claims, accessToken: token, headers };
}

/**
 * The AuthInfo handed to the SDK with a request from a verified caller. Its `token` stays empty: the SDK has no use
 * for the caller's token, and only the engine's token exchange may read it, from the caller.
 */
export function callerAuthInfo(caller: Caller): AuthInfo {
  return { token: "", clientId: "", scopes: [], extra: { [CALLER]: caller } };
}

/** The caller a handler's request came from; none without endpoint auth. */
export function callerFromContext(ctx: ServerContext): Caller | undefined {
  const caller = ctx.http?.authInfo?.extra?.[CALLER];
  return typeof caller === "object" && caller !== null ? (caller as Caller) : undefined;
}
