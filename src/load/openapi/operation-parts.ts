// Parts of an operation every version reads alike: path-level parameters under operation-level ones, and the
// responses (their content is the version's own).

import type { ApiMediaType, ApiParameter, ApiResponse } from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import { type Located, type Normalizer, text } from "./normalizer.js";

/** Parameters are told apart by location and name (any case for headers). */
export function parameterKey(p: { in: string; name: string }): string {
  return `${p.in}:${p.in === "header" ? p.name.toLowerCase() : p.name}`;
}

/** Path-level parameters, overridden by operation-level ones with the same key. */
export function withPathLevel<T>({
  pathLevel,
  operationLevel,
  key,
}: {
  pathLevel: T[];
  operationLevel: T[];
  key: (p: T) => string;
}): T[] {
  const overridden = new Set(operationLevel.map(key));
  return [...pathLevel.filter((p) => !overridden.has(key(p))), ...operationLevel];
}

/** An operation's parameters: its path item's, overridden by its own; the first of each where one is listed twice. */
export function mergeParameters({
  pathLevel,
  operationLevel,
}: {
  pathLevel: ApiParameter[];
  operationLevel: ApiParameter[];
}): ApiParameter[] {
  return firstOfEach(withPathLevel({ pathLevel, operationLevel, key: parameterKey }));
}

/** The first parameter of each key: a document that lists one twice means the first. */
export function firstOfEach(parameters: ApiParameter[]): ApiParameter[] {
  const seen = new Set<string>();
  return parameters.filter((p) => {
    const key = parameterKey(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Each response by status (`x-*` keys are extensions), its content read by `content`. */
export function readResponses({
  n,
  value,
  pointer,
  content,
}: {
  n: Normalizer;
  value: unknown;
  pointer: string;
  content: (response: Located) => ApiMediaType[];
}): ApiResponse[] {
  if (!isObject(value)) return [];
  const result: ApiResponse[] = [];
  for (const [status, raw] of Object.entries(value)) {
    if (status.startsWith("x-")) continue;
    const resolved = n.deref({ value: raw, pointer: joinPointer(pointer, status) });
    if (!resolved) continue;
    const description = text(resolved.value.description);
    result.push({
      status,
      pointer: resolved.pointer,
      ...(description !== undefined ? { description } : {}),
      content: content(resolved),
    });
  }
  return result;
}
