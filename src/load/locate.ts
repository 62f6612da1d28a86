// Line and column of JSON pointers in a document's text, for messages that point into the file. All pointers of
// a file are found in one pass: YAML through the `yaml` parser once, JSON (possibly 50 MB) by a scan that steps
// over every subtree no pointer leads into. A pointer that leads nowhere gets the place of its nearest existing
// parent (an error about a missing key points at the object that lacks it).

import { createRequire } from "node:module";
import { unescapePointerSegment } from "../catalog/pointer.js";

export interface Position {
  line: number;
  column: number;
}

interface Trie {
  children: Map<string, Trie>;
  /** The pointers ending here or below: each takes this node's offset until a deeper node is found. */
  pointers: string[];
}

export function locatePointers({
  text,
  pointers,
}: {
  text: string;
  pointers: Iterable<string>;
}): Map<string, Position> {
  const wanted = [...new Set(pointers)];
  if (wanted.length === 0) return new Map();
  try {
    return positions(text, startsLikeJson(text) ? jsonOffsets(text, trie(wanted)) : yamlOffsets(text, wanted));
  } catch {
    return new Map(); // locating is a courtesy; messages stand without it
  }
}

function trie(pointers: string[]): Trie {
  const root: Trie = { children: new Map(), pointers: [] };
  for (const pointer of pointers) {
    let node = root;
    node.pointers.push(pointer);
    for (const segment of pointer === "" ? [] : pointer.slice(1).split("/").map(unescapePointerSegment)) {
      let child = node.children.get(segment);
      if (!child) {
        child = { children: new Map(), pointers: [] };
        node.children.set(segment, child);
      }
      child.pointers.push(pointer);
      node = child;
    }
  }
  return root;
}

function jsonOffsets(text: string, root: Trie): Map<string, number> {
  const offsets = new Map<string, number>();
  let i = 0;
  const blank = (): void => {
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  };
  const stringEnd = (from: number): number => {
    let at = from + 1;
    while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    return at + 1;
  };
  const skip = (): void => {
    let depth = 0;
    do {
      const c = text[i]!;
      if (c === '"') i = stringEnd(i);
      else {
        if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") depth--;
        i++;
        if (depth === 0 && c !== "{" && c !== "[") while (i < text.length && !",}] \t\r\n".includes(text[i]!)) i++;
      }
    } while (depth > 0);
  };
  const visit = (node: Trie): void => {
    blank();
    for (const pointer of node.pointers) offsets.set(pointer, i);
    const open = text[i];
    if (node.children.size === 0 || (open !== "{" && open !== "[")) {
      skip();
      return;
    }
    i++;
    for (let index = 0; ; index++) {
      blank();
      if (text[i] === "}" || text[i] === "]") break;
      let key = String(index);
      if (open === "{") {
        const end = stringEnd(i);
        key = JSON.parse(text.slice(i, end)) as string;
        i = end;
        blank();
        i++; // the colon
      }
      const child = node.children.get(key);
      if (child) visit(child);
      else {
        blank();
        skip();
      }
      blank();
      if (text[i] === ",") i++;
    }
    i++;
  };
  visit(root);
  return offsets;
}

function yamlOffsets(text: string, pointers: string[]): Map<string, number> {
  const { parseDocument } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  const document = parseDocument(text, { merge: true });
  const offsets = new Map<string, number>();
  for (const pointer of pointers) {
    const path = pointer === "" ? [] : pointer.slice(1).split("/").map(unescapePointerSegment);
    for (let depth = path.length; depth >= 0; depth--) {
      const keys = path.slice(0, depth).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const node = document.getIn(keys, true) as { range?: [number, number, number] } | undefined;
      if (node?.range) {
        offsets.set(pointer, node.range[0]);
        break;
      }
    }
  }
  return offsets;
}

/** Offsets as 1-based lines and columns, in one pass over the text. */
function positions(text: string, offsets: Map<string, number>): Map<string, Position> {
  const sorted = [...new Set(offsets.values())].sort((a, b) => a - b);
  const at = new Map<number, Position>();
  let line = 1;
  let lineStart = 0;
  let next = text.indexOf("\n");
  for (const offset of sorted) {
    while (next >= 0 && next < offset) {
      line++;
      lineStart = next + 1;
      next = text.indexOf("\n", next + 1);
    }
    at.set(offset, { line, column: offset - lineStart + 1 });
  }
  return new Map([...offsets].map(([pointer, offset]) => [pointer, at.get(offset)!]));
}

function startsLikeJson(text: string): boolean {
  const first = /\S/.exec(text.slice(0, 1024))?.[0];
  return first === "{" || first === "[";
}
