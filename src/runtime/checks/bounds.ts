// Bounds on what a call may carry, measured without recursion: arguments a client sent can be nested deeper than
// the call stack (JSON.parse copes; JSON.stringify and recursive walks do not). Measured before anything else
// looks at them, so no argument set costs more than a small multiple of its own size to refuse.

export const MAX_ARGUMENT_DEPTH = 64;
/** JSON responses nesting deeper are refused before anything walks them (real APIs stay far below). */
export const MAX_RESPONSE_DEPTH = 256;
/** Values (scalars, arrays and objects) in one call's arguments: far more than a model writes in one call. */
export const DEFAULT_MAX_ARGUMENT_VALUES = 100_000;
/** Items in any one array of the arguments. */
export const DEFAULT_MAX_ARRAY_ITEMS = 10_000;

/** Names a client sent (a tool's, say) are quoted back at most this long. */
export const QUOTED_NAME_CHARS = 200;

/** The text, cut to `max` characters and marked so (for names and the like, which carry no secret). */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

export interface ArgumentBounds {
  maxBytes: number;
  maxValues: number;
  maxArrayItems: number;
}

/** Why arguments are too big to handle, or how many values they hold when they are within bounds. */
export function measureArguments(value: unknown, bounds: ArgumentBounds): { tooBig: string } | { values: number } {
  let bytes = 0;
  let values = 0;
  const stack: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 0 }];
  while (stack.length > 0) {
    const { item, depth } = stack.pop()!;
    values++;
    if (depth > MAX_ARGUMENT_DEPTH) return { tooBig: `nested more than ${MAX_ARGUMENT_DEPTH} levels deep` };
    if (typeof item === "string") bytes += Buffer.byteLength(item) + 2;
    else if (Array.isArray(item)) {
      // Lengths are checked before any item is visited: two million items cost no more to refuse than two.
      if (item.length > bounds.maxArrayItems)
        return { tooBig: `an array of ${item.length} items, more than ${bounds.maxArrayItems}` };
      if (values + stack.length + item.length > bounds.maxValues) return { tooBig: tooManyValues(bounds.maxValues) };
      bytes += 2 + item.length;
      for (const child of item) stack.push({ item: child, depth: depth + 1 });
    } else if (item !== null && typeof item === "object") {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        if (values + stack.length >= bounds.maxValues) return { tooBig: tooManyValues(bounds.maxValues) };
        bytes += Buffer.byteLength(key) + 4;
        stack.push({ item: (item as Record<string, unknown>)[key], depth: depth + 1 });
      }
      bytes += 2;
    } else bytes += String(item).length;
    if (bytes > bounds.maxBytes) return { tooBig: `more than ${bounds.maxBytes} bytes` };
  }
  return { values };
}

function tooManyValues(max: number): string {
  return `more than ${max} values in all`;
}

/** Whether `value` holds at most `max` values (scalars, arrays and objects); stops counting past it. */
export function atMostValues(value: unknown, max: number): boolean {
  let values = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    values++;
    if (Array.isArray(item)) {
      if (values + stack.length + item.length > max) return false;
      for (const child of item) stack.push(child);
    } else if (item !== null && typeof item === "object") {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        if (values + stack.length >= max) return false;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return true;
}
