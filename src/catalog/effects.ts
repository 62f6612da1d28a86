// Side-effect class and MCP annotations follow from the HTTP method, unless the spec's author says otherwise.

import type { HttpMethod, SideEffect, ToolAnnotations } from "./types.js";

const READ_METHODS = new Set<HttpMethod>(["GET", "HEAD", "OPTIONS", "TRACE"]);
const IDEMPOTENT_METHODS = new Set<HttpMethod>(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

export function sideEffectOf(method: HttpMethod): SideEffect {
  if (READ_METHODS.has(method)) return "read";
  return method === "DELETE" ? "destructive" : "write";
}

export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT_METHODS.has(method);
}

/**
 * The class a spec's author states (`x-mcp` effect, or readOnlyHint / destructiveHint), else the method's. The
 * class decides the policy (destructive asks first by default), so hints and guard rails never disagree.
 */
export function classify({
  method,
  effect,
  readOnlyHint,
  destructiveHint,
}: {
  method: HttpMethod;
  effect?: SideEffect | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
}): SideEffect {
  if (effect !== undefined) return effect;
  if (readOnlyHint === true) return "read";
  if (destructiveHint === true) return "destructive";
  const byMethod = sideEffectOf(method);
  if ((readOnlyHint === false && byMethod === "read") || (destructiveHint === false && byMethod === "destructive"))
    return "write";
  return byMethod;
}

export function annotationsFor({
  method,
  title,
  effect = sideEffectOf(method),
  idempotentHint = isIdempotent(method),
  // Every tool calls a remote API: its results come from outside the server.
  openWorldHint = true,
}: {
  method: HttpMethod;
  title: string;
  effect?: SideEffect | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}): ToolAnnotations {
  return {
    title,
    readOnlyHint: effect === "read",
    destructiveHint: effect === "destructive",
    idempotentHint,
    openWorldHint,
  };
}
