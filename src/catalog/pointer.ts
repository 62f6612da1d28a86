// JSON Pointer (RFC 6901) helpers for `$ref`s within one document.

export function escapePointerSegment(segment: string): string {
  if (!segment.includes("~") && !segment.includes("/")) return segment;
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function unescapePointerSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

export function joinPointer(base: string, ...segments: Array<string | number>): string {
  let pointer = base;
  for (const segment of segments) pointer += `/${escapePointerSegment(String(segment))}`;
  return pointer;
}

/** The pointer of a local `$ref` ("#/a/b" → "/a/b"), or undefined when the ref is not local to the document. */
export function localRefPointer(ref: string): string | undefined {
  if (ref === "#") return "";
  if (!ref.startsWith("#/")) return undefined;
  // A fragment is URI-encoded: `#/paths/~1pets%7Bid%7D`.
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    return ref.slice(1);
  }
}

/** The value at `pointer` in `root`, or undefined when nothing is there. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    if (current === null || typeof current !== "object") return undefined;
    const segment = unescapePointerSegment(raw);
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
