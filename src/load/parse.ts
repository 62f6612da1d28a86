// JSON and YAML text into values. JSON goes through JSON.parse (fast on 50 MB documents); YAML through `yaml`,
// which gives line and column for every error and caps alias expansion ("billion laughs").

import { createRequire } from "node:module";
import { MAX_DOCUMENT_DEPTH, shortPointer, tooDeep } from "../catalog/depth.js";
import { messageOf, UserError } from "../catalog/errors.js";
import { locatePointers } from "./locate.js";
import { yamlTooDeep } from "./yaml-depth.js";

// Loaded on first use: most large specs are JSON, and loading `yaml` costs as much as building a small catalog.
let yamlModule: typeof import("yaml") | undefined;
function yaml(): typeof import("yaml") {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yamlModule;
}

const YAML_OPTIONS = { maxAliasCount: 1000, prettyErrors: true, merge: true } as const;

/** A parsed file with its text, for pointing at lines and columns in error messages. */
export interface Parsed {
  value: unknown;
  text: string;
}

export function parseText({ text, file }: { text: string; file: string }): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return parseJsonOrYaml({ file, json: /\.json$/i.test(file) || startsLikeJson(source), text: () => source });
}

/**
 * Parses the bytes of a file. JSON is decoded to a one-byte string (see `asciiJson`): half the memory of the
 * two-byte string a plain UTF-8 decode gives as soon as one character is not Latin-1.
 */
export function parseBytes({ bytes, file }: { bytes: Buffer; file: string }): { value: unknown; text: () => string } {
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const text = (): string => body.toString("utf8");
  const json = /\.json$/i.test(file) || startsLikeJson(body.toString("latin1", 0, Math.min(body.length, 1024)));
  return { value: parseJsonOrYaml({ file, json, text, jsonText: json ? () => asciiJson(body) : undefined }), text };
}

function parseJsonOrYaml({
  file,
  json,
  text,
  jsonText = text,
}: {
  file: string;
  json: boolean;
  text: () => string;
  jsonText?: (() => string) | undefined;
}): unknown {
  let value: unknown;
  if (json) {
    try {
      value = JSON.parse(jsonText());
    } catch (error) {
      // Positions in an escaped text are not positions in the file: read the file's own text for the message.
      const original = text();
      let message = messageOf(error);
      try {
        JSON.parse(original);
      } catch (again) {
        message = messageOf(again);
      }
      throw new UserError({ code: "E_PARSE", message: `${file}: not valid JSON: ${jsonError(original, message)}` });
    }
  } else {
    try {
      value = yaml().parse(text(), YAML_OPTIONS);
    } catch (error) {
      // The YAML parser recurses per level: too deep a text runs it out of stack before any depth check can run.
      const deep = isStackOverflow(error)
        ? yamlTooDeep({ yaml: yaml(), text: text(), maxDepth: MAX_DOCUMENT_DEPTH })
        : undefined;
      if (deep) throw tooDeepError({ file, ...deep });
      throw new UserError({ code: "E_PARSE", message: `${file}: not valid YAML: ${yamlMessage(error)}` });
    }
  }
  if (value === undefined || value === null)
    throw new UserError({ code: "E_PARSE", message: `${file}: the file is empty` });
  refuseTooDeep({ value, file, text: json ? undefined : text });
  return value;
}

/**
 * Refuses a value nested deeper than MAX_DOCUMENT_DEPTH, before any of the walkers that recurse (schema
 * conversion, listing, validation, code generation) can overflow the call stack on it.
 */
export function refuseTooDeep({
  value,
  file,
  text,
}: {
  value: unknown;
  file: string;
  text?: (() => string) | undefined;
}): void {
  const pointer = tooDeep(value, MAX_DOCUMENT_DEPTH);
  if (pointer === undefined) return;
  const place = text ? locatePointers({ text: text(), pointers: [pointer] }).get(pointer) : undefined;
  throw tooDeepError({ file, pointer, ...(place ? { line: place.line, col: place.column } : {}) });
}

function tooDeepError({
  file,
  pointer,
  line,
  col,
}: {
  file: string;
  pointer: string;
  line?: number;
  col?: number;
}): UserError {
  return new UserError({
    code: "E_TOO_DEEP",
    message: `${file}${line ? `:${line}:${col}` : ""} #${shortPointer(pointer)}: nested more than ${MAX_DOCUMENT_DEPTH} levels deep, more than openapi-mcp reads (real APIs nest fewer than 40)`,
  });
}

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError || /Maximum call stack size exceeded/.test(messageOf(error));
}

// No regular expression runs over a whole document: V8 keeps the subject of the last successful match alive
// (RegExp.input), which would hold a 50 MB text in memory for as long as the catalog is built.
function startsLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b || c === 0x5b; // { or [
  }
  return false;
}

/**
 * JSON text with every non-ASCII character written as a `\uXXXX` escape. Outside strings JSON is ASCII, so the
 * escapes land inside strings and parse to the same value; the text stays one byte per character.
 */
export function asciiJson(bytes: Buffer): string {
  const latin1 = bytes.toString("latin1");
  let out = "";
  let from = 0;
  for (const match of latin1.matchAll(/[\x80-\xff]+/g)) {
    const start = match.index;
    const end = start + match[0].length;
    out += latin1.slice(from, start);
    const decoded = bytes.toString("utf8", start, end);
    // UTF-16 code units: characters beyond the BMP come out as surrogate pairs, as JSON writes them.
    for (let i = 0; i < decoded.length; i++) out += `\\u${decoded.charCodeAt(i).toString(16).padStart(4, "0")}`;
    from = end;
  }
  // Forget the big subject of the last match (V8's RegExp.input), so the latin1 text can be collected.
  /x/.test("x");
  return from === 0 ? latin1 : out + latin1.slice(from);
}

/** V8's message with its position as line and column; otherwise the YAML parser's reading of the fault. */
function jsonError(text: string, message: string): string {
  const position = /^(.*) in JSON at position (\d+)/.exec(message);
  if (position) {
    const offset = Number(position[2]);
    const before = text.slice(0, offset);
    const line = before.split("\n").length;
    return `line ${line}, column ${offset - before.lastIndexOf("\n")}: ${position[1]}`;
  }
  const { parseDocument, LineCounter } = yaml();
  const first = parseDocument(text, { ...YAML_OPTIONS, lineCounter: new LineCounter() }).errors[0];
  return first ? yamlMessage(first) : message;
}

function yamlMessage(error: unknown): string {
  const e = error as { message?: string; linePos?: Array<{ line: number; col: number }> };
  const text = (e.message ?? String(error)).split("\n", 1)[0]!.replace(/ at line \d+, column \d+:?$/, "");
  const at = e.linePos?.[0];
  return at ? `line ${at.line}, column ${at.col}: ${text}` : text;
}
