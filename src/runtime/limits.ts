// Bounds on what a call may carry, measured without recursion: arguments a client sent can be nested deeper than
// the call stack (JSON.parse copes; JSON.stringify and recursive walks do not).

export const MAX_ARGUMENT_DEPTH = 64;
/** JSON responses nesting deeper are refused before anything walks them (real APIs stay far below). */
export const MAX_RESPONSE_DEPTH = 256;

/** Why arguments are too big to handle, or undefined when they are within bounds. */
export function argumentsTooBig(value: unknown, maxBytes: number): string | undefined {
  let bytes = 0;
  const stack: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 0 }];
  while (stack.length > 0) {
    const { item, depth } = stack.pop()!;
    if (depth > MAX_ARGUMENT_DEPTH) return `nested more than ${MAX_ARGUMENT_DEPTH} levels deep`;
    if (typeof item === "string") bytes += Buffer.byteLength(item) + 2;
    else if (Array.isArray(item)) {
      bytes += 2 + item.length;
      for (const child of item) stack.push({ item: child, depth: depth + 1 });
    } else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item)) {
        bytes += Buffer.byteLength(key) + 4;
        stack.push({ item: child, depth: depth + 1 });
      }
      bytes += 2;
    } else bytes += String(item).length;
    if (bytes > maxBytes) return `more than ${maxBytes} bytes`;
  }
  return undefined;
}
