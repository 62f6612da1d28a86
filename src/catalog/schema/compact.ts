// What a tools/list entry need not carry. Every byte of it is paid for by the model up front, so the listing drops
// what says nothing new: a title repeating its property's name or its description, empty annotations, an example
// that is the default. Output schemas are for the client's validator, and the model reads the result itself, so
// they keep only what validates, less `pattern`: the server has checked every pattern it can (in linear time), and
// a client's validator runs them with a backtracking RegExp on whatever an upstream sent. No other rule changes
// what a schema accepts, and none touches a subschema or a `$ref`; a format few clients know (formats.ts) moves
// into the description, which a validator that ignores it reads alike.

import { setOwn } from "../own.js";
import type { JsonSchema } from "../types.js";
import { ADVERTISED_FORMATS, describeFormat } from "./formats.js";
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from "./keywords.js";

export type SchemaUse = "input" | "output";

/** Keywords that only annotate: validators ignore them. */
export const ANNOTATION_KEYWORDS = ["title", "description", "examples", "default", "deprecated"] as const;

const SINGLE = new Set<string>(SINGLE_SCHEMA_KEYWORDS);
const ARRAY = new Set<string>(SCHEMA_ARRAY_KEYWORDS);
const MAP = new Set<string>(SCHEMA_MAP_KEYWORDS);
const ANNOTATIONS = new Set<string>(ANNOTATION_KEYWORDS);

/**
 * `schema` without what the model does not need, sharing every part that did not change (schemas are shared
 * between tools; nothing is modified in place). `name` is what the schema is known by: its property name or its
 * definition key. `top`: the schema is a tool's input or output object, whose `properties` clients look for.
 */
export function compactSchema(
  schema: JsonSchema,
  { use, name, top = false }: { use: SchemaUse; name?: string; top?: boolean },
): JsonSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  let out: Record<string, unknown> | undefined;
  const set = (keyword: string, value: unknown): void => {
    out ??= { ...schema };
    if (value === undefined) delete out[keyword];
    else setOwn(out, keyword, value);
  };
  for (const keyword of Object.keys(schema)) {
    const value = schema[keyword];
    if (redundant({ schema, keyword, use, name, top })) set(keyword, undefined);
    else if (SINGLE.has(keyword)) changed(value, compactSchema(value as JsonSchema, { use }), (v) => set(keyword, v));
    else if (ARRAY.has(keyword) && Array.isArray(value))
      changed(value, compactList(value, use), (v) => set(keyword, v));
    else if (MAP.has(keyword) && isRecord(value))
      changed(value, compactMap(value, { use, names: keyword === "properties" }), (v) => set(keyword, v));
  }
  // A format clients do not know is said in words (output schemas are for validators only: it is just left out).
  const format = schema.format;
  if (format !== undefined && !(typeof format === "string" && ADVERTISED_FORMATS.has(format))) {
    set("format", undefined);
    if (use === "input" && typeof format === "string")
      set("description", describeFormat({ description: (out ?? schema).description, format }));
  }
  return out ?? schema;
}

function redundant({
  schema,
  keyword,
  use,
  name,
  top,
}: {
  schema: Record<string, unknown>;
  keyword: string;
  use: SchemaUse;
  name: string | undefined;
  top: boolean;
}): boolean {
  const value = schema[keyword];
  if (use === "output" && (ANNOTATIONS.has(keyword) || keyword === "pattern")) return true;
  switch (keyword) {
    case "title":
      return (
        typeof value !== "string" || blank(value) || sameWords(value, name) || sameWords(value, schema.description)
      );
    case "description":
      return typeof value === "string" && blank(value);
    case "examples":
      return (
        Array.isArray(value) &&
        (value.length === 0 || (value.length === 1 && "default" in schema && sameJson(value[0], schema.default)))
      );
    case "deprecated":
      return value === false;
    case "required":
      return Array.isArray(value) && value.length === 0;
    case "properties":
      return !top && isRecord(value) && Object.keys(value).length === 0;
    default:
      return false;
  }
}

function compactList(list: unknown[], use: SchemaUse): unknown[] {
  let out: unknown[] | undefined;
  list.forEach((item, i) => {
    const compacted = compactSchema(item as JsonSchema, { use });
    if (compacted === item) return;
    out ??= [...list];
    out[i] = compacted;
  });
  return out ?? list;
}

/** Subschemas by name; under `properties` the names are property names, which a title may repeat. */
function compactMap(
  map: Record<string, unknown>,
  { use, names }: { use: SchemaUse; names: boolean },
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(map)) {
    const compacted = compactSchema(map[key] as JsonSchema, { use, ...(names ? { name: key } : {}) });
    if (compacted === map[key]) continue;
    out ??= { ...map };
    setOwn(out, key, compacted);
  }
  return out ?? map;
}

function changed<T>(before: T, after: T, apply: (value: T) => void): void {
  if (after !== before) apply(after);
}

/** "Full Name", "full_name" and "fullName" say the same to a reader. */
function sameWords(text: string, other: unknown): boolean {
  return typeof other === "string" && words(text) === words(other);
}

function words(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

function blank(text: string): boolean {
  return text.trim() === "";
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
