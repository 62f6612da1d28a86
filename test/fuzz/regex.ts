// Strings that match a JSON Schema `pattern`, for the fuzzer's valid arguments: a small generator for the regular
// expressions real specs use (classes, escapes, groups, alternation, quantifiers). Lookarounds and backreferences
// are ignored; the caller checks the result against the real RegExp and falls back when it does not match.

import type { Rng } from "./rng.js";

type Node =
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "set"; chars: string[]; negated: boolean }
  | { kind: "text"; text: string }
  | { kind: "repeat"; node: Node; min: number; max: number };

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
const DIGITS = [..."0123456789"];
const WORD = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"];
const SPACE = [" ", "\t"];

class Parser {
  private at = 0;
  constructor(private readonly source: string) {}

  parse(): Node {
    const node = this.alternation();
    return node;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === "|") {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: "alt", options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== "|" && this.peek() !== ")") {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { kind: "seq", items };
  }

  private quantified(node: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, 3];
    else if (c === "+") [min, max] = [1, 4];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!match) return node;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] ? Math.min(Number(match[3]), min + 5) : min + 3;
      this.at += match[0].length - 1;
    } else return node;
    this.at++;
    if (this.peek() === "?" || this.peek() === "+") this.at++;
    return { kind: "repeat", node, min, max };
  }

  private atom(): Node {
    const c = this.source[this.at++]!;
    switch (c) {
      case "(": {
        let lookaround = false;
        if (this.peek() === "?") {
          const rest = this.source.slice(this.at);
          if (rest.startsWith("?:")) this.at += 2;
          else if (rest.startsWith("?=") || rest.startsWith("?!")) {
            this.at += 2;
            lookaround = true;
          } else if (rest.startsWith("?<=") || rest.startsWith("?<!")) {
            this.at += 3;
            lookaround = true;
          } else if (rest.startsWith("?<")) this.at = this.source.indexOf(">", this.at) + 1;
        }
        const inner = this.alternation();
        if (this.peek() === ")") this.at++;
        return lookaround ? { kind: "text", text: "" } : inner;
      }
      case "[":
        return this.set();
      case ".":
        return { kind: "set", chars: PRINTABLE, negated: false };
      case "^":
      case "$":
        return { kind: "text", text: "" };
      case "\\":
        return this.escape(false) as Node;
      default:
        return { kind: "text", text: c };
    }
  }

  /** After a backslash: a class, a character, or (outside a set) an anchor or backreference. */
  private escape(inSet: boolean): Node | string {
    const c = this.source[this.at++] ?? "\\";
    switch (c) {
      case "d":
        return { kind: "set", chars: DIGITS, negated: false };
      case "w":
        return { kind: "set", chars: WORD, negated: false };
      case "s":
        return { kind: "set", chars: SPACE, negated: false };
      case "D":
        return { kind: "set", chars: DIGITS, negated: true };
      case "W":
        return { kind: "set", chars: WORD, negated: true };
      case "S":
        return { kind: "set", chars: SPACE, negated: true };
      case "b":
      case "B":
        return inSet ? "\b" : { kind: "text", text: "" };
      case "n":
        return inSet ? "\n" : { kind: "text", text: "\n" };
      case "t":
        return inSet ? "\t" : { kind: "text", text: "\t" };
      case "u":
      case "x": {
        const length = c === "u" ? 4 : 2;
        const hex = this.source.slice(this.at, this.at + length);
        if (/^[0-9A-Fa-f]+$/.test(hex) && hex.length === length) {
          this.at += length;
          const char = String.fromCharCode(Number.parseInt(hex, 16));
          return inSet ? char : { kind: "text", text: char };
        }
        return inSet ? c : { kind: "text", text: c };
      }
      default:
        if (/[1-9]/.test(c) && !inSet) return { kind: "text", text: "" };
        return inSet ? c : { kind: "text", text: c };
    }
  }

  private set(): Node {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.at++;
    }
    const chars: string[] = [];
    let first = true;
    while (this.at < this.source.length && (this.peek() !== "]" || first)) {
      first = false;
      let c = this.source[this.at++]!;
      if (c === "\\") {
        const escaped = this.escape(true);
        if (typeof escaped !== "string") {
          if (escaped.kind === "set" && !escaped.negated) chars.push(...escaped.chars);
          continue;
        }
        c = escaped;
      }
      if (this.peek() === "-" && this.source[this.at + 1] !== "]" && this.at + 1 < this.source.length) {
        this.at++;
        let end = this.source[this.at++]!;
        if (end === "\\") {
          const escaped = this.escape(true);
          end = typeof escaped === "string" ? escaped : end;
        }
        const from = c.charCodeAt(0);
        const to = end.charCodeAt(0);
        for (let code = from; code <= to && code - from < 512; code++) chars.push(String.fromCharCode(code));
      } else chars.push(c);
    }
    this.at++;
    return { kind: "set", chars, negated };
  }
}

function render(node: Node, rng: Rng): string {
  switch (node.kind) {
    case "text":
      return node.text;
    case "seq":
      return node.items.map((item) => render(item, rng)).join("");
    case "alt":
      return render(rng.pick(node.options), rng);
    case "repeat": {
      const count = rng.int(node.min, node.max);
      let out = "";
      for (let i = 0; i < count; i++) out += render(node.node, rng);
      return out;
    }
    case "set": {
      if (!node.negated) return node.chars.length > 0 ? rng.pick(node.chars) : "";
      const excluded = new Set(node.chars);
      const allowed = WORD.filter((c) => !excluded.has(c));
      return rng.pick(allowed.length > 0 ? allowed : PRINTABLE.filter((c) => !excluded.has(c)));
    }
  }
}

/** A string matching `pattern`, or undefined when the generator cannot find one in a few tries. */
export function stringMatching({
  pattern,
  rng,
  accept = () => true,
}: {
  pattern: string;
  rng: Rng;
  accept?: (text: string) => boolean;
}): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "u");
  } catch {
    try {
      regex = new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
  let tree: Node;
  try {
    tree = new Parser(pattern).parse();
  } catch {
    return undefined;
  }
  for (let attempt = 0; attempt < 12; attempt++) {
    const text = render(tree, rng);
    if (regex.test(text) && accept(text)) return text;
  }
  return undefined;
}
