// Which JSON Schema keywords hold subschemas, and which plain keywords carry over with what value type. The
// converter keeps only keywords listed here, so what it emits compiles with Ajv2020 even in strict mode.

import { isObject } from "../pointer.js";

/** Keywords whose value is one schema. (`items` and `additionalProperties` may also be other things.) */
export const SINGLE_SCHEMA_KEYWORDS = [
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
] as const;

/** Keywords whose value is a non-empty array of schemas. */
export const SCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;

/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas"] as const;

type Check = (value: unknown) => boolean;
const isNumber: Check = (v) => typeof v === "number" && Number.isFinite(v);
const isCount: Check = (v) => Number.isInteger(v) && (v as number) >= 0;
const isString: Check = (v) => typeof v === "string";
const isBoolean: Check = (v) => typeof v === "boolean";
const anything: Check = () => true;

/** Plain keywords kept as they are when their value has the right type. */
export const VALUE_KEYWORDS: Record<string, Check> = {
  title: isString,
  description: isString,
  format: isString,
  default: anything,
  const: anything,
  deprecated: isBoolean,
  multipleOf: (v) => isNumber(v) && (v as number) > 0,
  maximum: isNumber,
  minimum: isNumber,
  maxLength: isCount,
  minLength: isCount,
  maxItems: isCount,
  minItems: isCount,
  maxProperties: isCount,
  minProperties: isCount,
  maxContains: isCount,
  minContains: isCount,
  uniqueItems: isBoolean,
  contentMediaType: isString,
  contentEncoding: isString,
  dependentRequired: (v) =>
    isObject(v) && Object.values(v).every((list) => Array.isArray(list) && list.every((item) => isString(item))),
};

export const JSON_TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);

export function isValidPattern(pattern: string): boolean {
  try {
    // Ajv compiles patterns with the unicode flag; a pattern it would reject is dropped, not passed on.
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

const SUBSCHEMA_KIND = new Map<string, "single" | "array" | "map">([
  ...SINGLE_SCHEMA_KEYWORDS.map((k): [string, "single"] => [k, "single"]),
  ["additionalItems", "single"],
  ...SCHEMA_ARRAY_KEYWORDS.map((k): [string, "array"] => [k, "array"]),
  ...SCHEMA_MAP_KEYWORDS.map((k): [string, "map"] => [k, "map"]),
]);

/**
 * Calls `visit` on every direct subschema of a raw schema, with the pointer segments leading to it. Iterates the
 * schema's own keys (most schemas have two or three) rather than probing every keyword.
 */
export function forEachSubschema(
  schema: Record<string, unknown>,
  visit: (subschema: unknown, ...segments: string[]) => void,
): void {
  for (const keyword in schema) {
    const kind = SUBSCHEMA_KIND.get(keyword);
    if (kind === undefined) continue;
    const value = schema[keyword];
    if (kind === "map") {
      if (isObject(value)) for (const name in value) visit(value[name], keyword, name);
    } else if (Array.isArray(value)) {
      // `items` as an array is a draft-04 tuple.
      if (kind === "array" || keyword === "items")
        for (let i = 0; i < value.length; i++) visit(value[i], keyword, String(i));
    } else if (kind === "single" && isObject(value)) {
      visit(value, keyword);
    }
  }
}
