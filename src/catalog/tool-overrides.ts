// What a spec's author says about one operation's tool (`x-mcp`, already checked by the loader) over what the
// operation gives: its name, title, description, class, annotations and approval.

import type { ApiOperation, ApiToolOverrides } from "./document.js";
import { annotationsFor, classify } from "./effects.js";
import type { NameChoice } from "./naming.js";
import { baseToolName } from "./naming.js";
import type { SideEffect, ToolAnnotations } from "./types.js";

/** The name an operation asks for: the author's (namespaced in a manifest), unless `own`, else the operation's. */
export function requestedName({
  operation,
  namespace,
  own = false,
}: {
  operation: ApiOperation;
  namespace: string;
  own?: boolean;
}): NameChoice {
  const { method, path, mcp } = operation;
  const operationId = !own && mcp?.name !== undefined ? mcp.name : operation.operationId;
  return baseToolName({ method, path, namespace, ...(operationId !== undefined ? { operationId } : {}) });
}

/**
 * Names the authors chose must be unique: one that another tool of the source asks for too, or that an earlier
 * tool has, is an error, and that operation keeps its own name. Held beforehand, a chosen name wins over a
 * later operation's derived one.
 */
export function checkChosenNames({
  candidates,
  namespace,
  hold,
  report,
}: {
  candidates: Array<{ operation: ApiOperation; choice: NameChoice }>;
  namespace: string;
  hold: (name: string, salt: string) => boolean;
  report: (candidate: { operation: ApiOperation; choice: NameChoice }, message: string) => void;
}): void {
  const others = new Set(candidates.filter((c) => c.operation.mcp?.name === undefined).map((c) => c.choice.name));
  for (const candidate of candidates) {
    const { operation, choice } = candidate;
    if (operation.mcp?.name === undefined) continue;
    if (!others.has(choice.name) && hold(choice.name, `${operation.method} ${operation.path}`)) continue;
    report(
      candidate,
      `x-mcp name '${operation.mcp.name}' is the name of another tool too; tool names must be unique, so this operation keeps its own name`,
    );
    candidate.choice = requestedName({ operation, namespace, own: true });
  }
}

/** Class and annotations: the author's effect or readOnlyHint/destructiveHint decide the class, the hints follow it. */
export function classAndAnnotations({ operation, title }: { operation: ApiOperation; title: string }): {
  effect: SideEffect;
  annotations: ToolAnnotations;
} {
  const overrides: Partial<ApiToolOverrides> = operation.mcp ?? {};
  const hints = overrides.annotations ?? {};
  const effect = classify({
    method: operation.method,
    effect: overrides.effect,
    readOnlyHint: hints.readOnlyHint,
    destructiveHint: hints.destructiveHint,
  });
  return {
    effect,
    annotations: annotationsFor({
      method: operation.method,
      title: hints.title ?? title,
      effect,
      idempotentHint: hints.idempotentHint,
      openWorldHint: hints.openWorldHint,
    }),
  };
}
