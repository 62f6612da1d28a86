// What the converter does with each keyword of a raw schema, one handler per keyword (keywords.ts lists the
// vocabulary). A keyword without a handler (x-*, xml, externalDocs, readOnly/writeOnly, $id, vendor fields) is left
// out: it is not 2020-12 validation, or it is read after the walk (`required`, `example`, `discriminator`).

import { isObject } from "../pointer.js";
import type { JsonSchema } from "../types.js";
import type { Direction } from "./direction.js";
import { isValidPattern, JSON_TYPES, SCHEMA_ARRAY_KEYWORDS, VALUE_KEYWORDS } from "./keywords.js";

/** The converter's steps a handler calls: subschemas below the current place, and what was lost there. */
export interface KeywordWalker {
  child(raw: unknown, direction: Direction, segment: string, index?: string): JsonSchema;
  lossy(message: string, ...segments: string[]): void;
  properties(value: Record<string, unknown>, direction: Direction, removed: Set<string>): Record<string, unknown>;
  schemaMap(value: Record<string, unknown>, direction: Direction, keyword: string): Record<string, unknown>;
  checkLinear(pattern: string, keyword: string): void;
}

/** One schema being converted. `keyword` and `value` move along its keywords, so a walk allocates one site. */
export interface KeywordSite {
  readonly walker: KeywordWalker;
  readonly raw: Record<string, unknown>;
  readonly out: Record<string, unknown>;
  readonly direction: Direction;
  keyword: string;
  value: unknown;
  /** Properties left out for this direction (readOnly in input, writeOnly in output): `required` drops them too. */
  removed: Set<string> | undefined;
}

type KeywordHandler = (site: KeywordSite) => void;

/** A short JSON rendering of a value for a diagnostic. */
export function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const keepIf =
  (check: (value: unknown) => boolean): KeywordHandler =>
  ({ walker, out, keyword, value }) => {
    if (check(value)) out[keyword] = value;
    else walker.lossy(`'${keyword}' has an invalid value ${preview(value)} and was dropped`, keyword);
  };

const type: KeywordHandler = ({ walker, out, value }) => {
  if (value === "file") {
    // Swagger 2.0 file parameters: binary content.
    out.type = "string";
    out.format ??= "binary";
  } else if (typeof value === "string" && JSON_TYPES.has(value)) {
    out.type = value;
  } else if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((t) => typeof t === "string" && JSON_TYPES.has(t))
  ) {
    out.type = [...new Set(value)];
  } else {
    walker.lossy(`'type' ${preview(value)} is not a JSON Schema type and was dropped`, "type");
  }
};

const enumList: KeywordHandler = ({ walker, out, value }) => {
  if (Array.isArray(value)) out.enum = value;
  else walker.lossy(`'enum' must be an array, found ${preview(value)}; dropped`, "enum");
};

const examples: KeywordHandler = ({ out, value }) => {
  if (Array.isArray(value)) out.examples = value;
};

const pattern: KeywordHandler = ({ walker, out, keyword, value }) => {
  if (typeof value === "string" && isValidPattern(value)) {
    // Kept for the model to read even when the server cannot check it.
    out.pattern = value;
    walker.checkLinear(value, keyword);
  } else {
    walker.lossy(`'pattern' ${preview(value)} is not a valid regular expression and was dropped`, keyword);
  }
};

/** OAS 2.0 / 3.0 write a boolean beside minimum/maximum; 2020-12 wants the bound itself. */
const exclusiveBound =
  (bound: "minimum" | "maximum"): KeywordHandler =>
  ({ raw, out, keyword, value }) => {
    if (typeof value === "number") out[keyword] = value;
    else if (value === true && typeof raw[bound] === "number") out[keyword] = raw[bound];
  };

const properties: KeywordHandler = (site) => {
  const { walker, out, direction, value } = site;
  if (isObject(value)) {
    site.removed = new Set();
    out.properties = walker.properties(value, direction, site.removed);
  } else {
    walker.lossy(`'properties' must be an object, found ${preview(value)}; dropped`, "properties");
  }
};

const schemaMap: KeywordHandler = ({ walker, out, direction, keyword, value }) => {
  if (isObject(value)) out[keyword] = walker.schemaMap(value, direction, keyword);
};

const schemaList = ({ walker, direction, keyword }: KeywordSite, list: unknown[]): JsonSchema[] =>
  list.map((item, i) => walker.child(item, direction, keyword, String(i)));

const items: KeywordHandler = (site) => {
  const { walker, raw, out, direction, keyword, value } = site;
  if (Array.isArray(value)) {
    // Draft-04 tuples, seen in OAS 3.0 documents although it forbids them.
    out.prefixItems = schemaList(site, value);
    if (isObject(raw.additionalItems) || typeof raw.additionalItems === "boolean") {
      out.items = walker.child(raw.additionalItems, direction, "additionalItems");
    }
  } else if (typeof value === "boolean" || isObject(value)) {
    out.items = walker.child(value, direction, keyword);
  }
};

const prefixItems: KeywordHandler = (site) => {
  if (Array.isArray(site.value)) site.out.prefixItems = schemaList(site, site.value);
};

const composition: KeywordHandler = (site) => {
  const { walker, out, keyword, value } = site;
  if (Array.isArray(value) && value.length > 0) out[keyword] = schemaList(site, value);
  else walker.lossy(`'${keyword}' must be a non-empty array, found ${preview(value)}; dropped`, keyword);
};

/** `additionalProperties` and `unevaluatedProperties`: a boolean kept as it is, a schema converted. */
const booleanOrSchema: KeywordHandler = ({ walker, out, direction, keyword, value }) => {
  if (typeof value === "boolean") out[keyword] = value;
  else if (isObject(value)) out[keyword] = walker.child(value, direction, keyword);
};

const single: KeywordHandler = ({ walker, out, direction, keyword, value }) => {
  if (isObject(value) || typeof value === "boolean") out[keyword] = walker.child(value, direction, keyword);
};

const SINGLE = ["not", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "contentSchema"];

/** Every keyword the converter keeps, with its handler. A Map, so `constructor` or `__proto__` is no keyword. */
export const KEYWORD_HANDLERS = new Map<string, KeywordHandler>([
  ...Object.entries(VALUE_KEYWORDS).map(([keyword, check]): [string, KeywordHandler] => [keyword, keepIf(check)]),
  ["type", type],
  ["enum", enumList],
  ["examples", examples],
  ["pattern", pattern],
  ["exclusiveMinimum", exclusiveBound("minimum")],
  ["exclusiveMaximum", exclusiveBound("maximum")],
  ["properties", properties],
  ["patternProperties", schemaMap],
  ["dependentSchemas", schemaMap],
  ["additionalProperties", booleanOrSchema],
  ["unevaluatedProperties", booleanOrSchema],
  ["items", items],
  ["prefixItems", prefixItems],
  ...SCHEMA_ARRAY_KEYWORDS.filter((k) => k !== "prefixItems").map((k): [string, KeywordHandler] => [k, composition]),
  ...SINGLE.map((k): [string, KeywordHandler] => [k, single]),
]);
