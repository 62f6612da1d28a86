// JSON and YAML text into values. JSON goes through JSON.parse (fast on 50 MB documents); YAML through `yaml`,
// which gives line and column for every error and caps alias expansion ("billion laughs").

import { createRequire } from "node:module";
import { UserError } from "../catalog/errors.js";

// Loaded on first use: most large specs are JSON, and loading `yaml` costs as much as building a small catalog.
let yamlModule: typeof import("yaml") | undefined;
function yaml(): typeof import("yaml") {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yamlModule;
}

const YAML_OPTIONS = { maxAliasCount: 1000, prettyErrors: false, merge: true } as const;

export interface Parsed {
  value: unknown;
  /** Line and column (1-based) of the value at a JSON pointer, for error messages; computed only when asked. */
  locate: (pointer: string) => { line: number; col: number } | undefined;
}

export function parseText({ text, file }: { text: string; file: string }): Parsed {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const looksLikeJson = /\.json$/i.test(file) || /^\s*[{[]/.test(source);
  let value: unknown;
  if (looksLikeJson) {
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw new UserError({ code: "E_PARSE", message: `${file}: not valid JSON: ${jsonErrorPlace(source) ?? (error as Error).message}` });
    }
  } else {
    try {
      value = yaml().parse(source, YAML_OPTIONS);
    } catch (error) {
      throw new UserError({ code: "E_PARSE", message: `${file}: not valid YAML: ${yamlMessage(error)}` });
    }
  }
  if (value === undefined || value === null) throw new UserError({ code: "E_PARSE", message: `${file}: the file is empty` });
  return { value, locate: (pointer) => locate(source, pointer) };
}

/** Where a JSON text goes wrong, read again by the YAML parser (JSON is YAML) for its line and column. */
function jsonErrorPlace(text: string): string | undefined {
  const { parseDocument, LineCounter } = yaml();
  const document = parseDocument(text, { ...YAML_OPTIONS, lineCounter: new LineCounter() });
  const first = document.errors[0];
  return first ? yamlMessage(first) : undefined;
}

function yamlMessage(error: unknown): string {
  const e = error as { message?: string; linePos?: Array<{ line: number; col: number }> };
  const text = (e.message ?? String(error)).split("\n", 1)[0]!.replace(/ at line \d+, column \d+:?$/, "");
  const at = e.linePos?.[0];
  return at ? `line ${at.line}, column ${at.col}: ${text}` : text;
}

function locate(text: string, pointer: string): { line: number; col: number } | undefined {
  try {
    const { parseDocument, LineCounter } = yaml();
    const lineCounter = new LineCounter();
    const document = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
    const path = pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
    // Walk down as far as the path exists: an error about a missing key points at its parent.
    for (let depth = path.length; depth >= 0; depth--) {
      const keys = path.slice(0, depth).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const node = document.getIn(keys, true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return lineCounter.linePos(node.range[0]);
    }
  } catch {
    // Locating is a courtesy; the message stands without it.
  }
  return undefined;
}
