// Property names every JavaScript object inherits (`constructor`, `toString`, `__proto__` …). A validator that
// looks properties up without checking they are the value's own, as the SDK client's Ajv does, finds Object's
// function where a result leaves such a property out, and refuses a valid result ("data/constructor must be
// string"); `__proto__` it mishandles outright. An output schema naming one is therefore not advertised (the server
// still validates with it, looking at own properties only).

import type { JsonSchema } from "../types.js";
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from "./keywords.js";

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Whether `schema` (not following `$ref`s) declares a property named like one every object inherits. */
export function namesInheritedProperty(schema: JsonSchema): boolean {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  const properties = schema.properties;
  if (
    typeof properties === "object" &&
    properties !== null &&
    Object.keys(properties).some((name) => INHERITED.has(name))
  )
    return true;
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) if (namesInheritedProperty(schema[keyword] as JsonSchema)) return true;
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const list = schema[keyword];
    if (Array.isArray(list) && list.some((item) => namesInheritedProperty(item as JsonSchema))) return true;
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (
      typeof map === "object" &&
      map !== null &&
      Object.values(map).some((item) => namesInheritedProperty(item as JsonSchema))
    )
      return true;
  }
  return false;
}
