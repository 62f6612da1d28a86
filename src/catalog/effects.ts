// Side-effect class and MCP annotations follow from the HTTP method.

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

export function annotationsFor({ method, title }: { method: HttpMethod; title: string }): ToolAnnotations {
  const effect = sideEffectOf(method);
  return {
    title,
    readOnlyHint: effect === "read",
    destructiveHint: effect === "destructive",
    idempotentHint: isIdempotent(method),
    // Every tool calls a remote API: its results come from outside the server.
    openWorldHint: true,
  };
}
