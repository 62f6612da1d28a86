// How deeply a JSON value nests, measured without recursion. JSON.parse copes with any depth, but every walker
// after it (schema conversion, JSON.stringify, validation, masking) recurses and overflows the call stack a few
// thousand levels down; a value is checked here before any of them sees it.

import { joinPointer } from "./pointer.js";

/** Nesting of OpenAPI documents, action definitions and manifests (real APIs stay under 40: see docs/your-api.md). */
export const MAX_DOCUMENT_DEPTH = 128;

interface Frame {
  value: object;
  depth: number;
  key: string | number;
  parent: Frame | undefined;
}

/**
 * The JSON pointer of the first value (in document order) nested deeper than `maxDepth` levels below `value`
 * (the root is level 0), or undefined when there is none.
 */
export function tooDeep(value: unknown, maxDepth: number): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const stack: Frame[] = [{ value, depth: 0, key: "", parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > maxDepth) return pointerOf(frame);
    // Children pushed last-first, so the first reported is the first in the document.
    const { value: container, depth } = frame;
    if (Array.isArray(container)) {
      for (let i = container.length - 1; i >= 0; i--) {
        const child: unknown = container[i];
        if (child !== null && typeof child === "object")
          stack.push({ value: child, depth: depth + 1, key: i, parent: frame });
      }
    } else {
      const keys = Object.keys(container);
      for (let i = keys.length - 1; i >= 0; i--) {
        const child = (container as Record<string, unknown>)[keys[i]!];
        if (child !== null && typeof child === "object")
          stack.push({ value: child, depth: depth + 1, key: keys[i]!, parent: frame });
      }
    }
  }
  return undefined;
}

function pointerOf(frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) keys.push(at.key);
  return joinPointer("", ...keys.reverse());
}

/** A long pointer cut in the middle for a message: its start says where, its end what. */
export function shortPointer(pointer: string, max = 160): string {
  if (pointer.length <= max) return pointer;
  const head = pointer.slice(0, Math.floor(max * 0.6));
  const tail = pointer.slice(pointer.length - Math.floor(max * 0.3));
  return `${head.slice(0, head.lastIndexOf("/"))}/…${tail.slice(tail.indexOf("/"))}`;
}
