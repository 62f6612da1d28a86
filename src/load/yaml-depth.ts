// Where a YAML text nests too deeply. The YAML parser builds values recursively and runs out of stack some
// hundreds of levels down; its token stream (CST) is built without recursion, so the place is found there.

import type { CST as CstTypes } from "yaml";
import { joinPointer } from "../catalog/pointer.js";

type Yaml = typeof import("yaml");
type Token = CstTypes.Token;

interface Frame {
  token: Token;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

/** The JSON pointer and position of the first collection nested deeper than `maxDepth`, if any. */
export function yamlTooDeep({
  yaml,
  text,
  maxDepth,
}: {
  yaml: Yaml;
  text: string;
  maxDepth: number;
}): { pointer: string; line: number; col: number } | undefined {
  const lineCounter = new yaml.LineCounter();
  for (const document of new yaml.Parser(lineCounter.addNewLine).parse(text)) {
    if (document.type !== "document" || !document.value) continue;
    const stack: Frame[] = [{ token: document.value, depth: 0, key: "", parent: undefined }];
    while (stack.length > 0) {
      const frame = stack.pop()!;
      if (frame.depth > maxDepth) return { pointer: pointerOf(frame), ...lineCounter.linePos(frame.token.offset) };
      const children = childrenOf(yaml, frame.token);
      for (let i = children.length - 1; i >= 0; i--) {
        const [key, token] = children[i]!;
        stack.push({ token, depth: frame.depth + 1, key, parent: frame });
      }
    }
  }
  return undefined;
}

/** The collections directly inside a collection token, with their keys (indexes in sequences). */
function childrenOf(yaml: Yaml, token: Token): Array<[string, Token]> {
  if (token.type !== "block-map" && token.type !== "block-seq" && token.type !== "flow-collection") return [];
  const isSequence = token.type === "block-seq" || (token.type === "flow-collection" && token.start.source === "[");
  const children: Array<[string, Token]> = [];
  token.items.forEach((item, i) => {
    const value = item.value;
    if (!value || !isCollection(value)) return;
    const key = "key" in item && item.key ? yaml.CST.resolveAsScalar(item.key)?.value : undefined;
    children.push([isSequence ? String(i) : (key ?? "?"), value]);
  });
  return children;
}

function isCollection(token: Token): boolean {
  return token.type === "block-map" || token.type === "block-seq" || token.type === "flow-collection";
}

function pointerOf(frame: Frame): string {
  const keys: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) keys.push(at.key);
  return joinPointer("", ...keys.reverse());
}
