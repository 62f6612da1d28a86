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

/** Calls `visit` on every direct subschema of a raw schema, with the pointer segments leading to it. */
export function forEachSubschema(
  schema: Record<string, unknown>,
  visit: (subschema: unknown, ...segments: string[]) => void,
): void {
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
    const value = schema[keyword];
    if (isObject(value)) visit(value, keyword);
    else if (keyword === "items" && Array.isArray(value)) for (const [i, item] of value.entries()) visit(item, keyword, String(i));
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const value = schema[keyword];
    if (Array.isArray(value)) for (const [i, item] of value.entries()) visit(item, keyword, String(i));
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const value = schema[keyword];
    if (isObject(value)) for (const [name, item] of Object.entries(value)) visit(item, keyword, name);
  }
  if (isObject(schema.additionalItems)) visit(schema.additionalItems, "additionalItems");
}
