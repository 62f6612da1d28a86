// A tool's output schema comes from its first success response with JSON content. MCP wants an object at the
// top (`structuredContent` is an object), so anything else is wrapped as `{ result: … }`.

import type { ApiResponse } from "./document.js";
import { isJsonMediaType } from "./media-type.js";
import type { SchemaConverter } from "./schema/convert.js";
import type { JsonObjectSchema, JsonSchema } from "./types.js";

export const WRAPPED_RESULT_KEY = "result";

/** Success statuses in the order they are chosen: exact codes ascending, then `2XX`. */
function successResponses(responses: ApiResponse[]): ApiResponse[] {
  const exact = responses.filter((r) => /^2\d\d$/.test(r.status)).sort((a, b) => Number(a.status) - Number(b.status));
  const ranged = responses.filter((r) => r.status.toUpperCase() === "2XX");
  return [...exact, ...ranged];
}

export function buildOutput({
  responses,
  converter,
  definitions,
}: {
  responses: ApiResponse[];
  converter: SchemaConverter;
  definitions: Record<string, JsonSchema>;
}): {
  schema?: JsonObjectSchema;
  wrapped?: boolean;
  accept: string[];
} {
  const success = successResponses(responses);
  const accept = [...new Set(success.flatMap((r) => r.content.map((c) => c.mediaType)))];
  // An output schema promises structured content for every success; a success that may come back empty (201
  // with a body, or 204 without) cannot keep that promise, and MCP clients reject a result that breaks it.
  if (success.some((r) => r.content.length === 0)) return { accept };
  for (const response of success) {
    const json = response.content.find((c) => isJsonMediaType(c.mediaType) && c.schema !== undefined);
    if (!json) continue;
    const converted = converter.convert(json.schema, {
      direction: "output",
      pointer: json.schemaPointer,
      inline: true,
    });
    return { ...asObjectSchema(converted, definitions), accept };
  }
  return { accept };
}

/**
 * The schema itself when every value it accepts is an object (then `type: "object"` is stated at the top, as MCP
 * wants), else an object holding it under `result`.
 */
export function asObjectSchema(
  schema: JsonSchema,
  definitions: Record<string, JsonSchema>,
): { schema: JsonObjectSchema; wrapped?: boolean } {
  if (typeof schema === "object" && isObjectOnly(schema, definitions, 0))
    return { schema: { ...schema, type: "object" } as JsonObjectSchema };
  const result = schema === true ? {} : schema === false ? { not: {} } : schema;
  return {
    schema: { type: "object", properties: { [WRAPPED_RESULT_KEY]: result }, required: [WRAPPED_RESULT_KEY] },
    wrapped: true,
  };
}

/** Whether a converted schema accepts only objects: `type: object`, an allOf with such a member, or a oneOf/anyOf of them. */
function isObjectOnly(schema: JsonSchema | undefined, definitions: Record<string, JsonSchema>, depth: number): boolean {
  if (typeof schema !== "object" || depth > 16) return false;
  if (schema.type !== undefined) return schema.type === "object";
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/$defs/")) {
    return isObjectOnly(definitions[schema.$ref.slice("#/$defs/".length)], definitions, depth + 1);
  }
  if (
    Array.isArray(schema.allOf) &&
    schema.allOf.some((member) => isObjectOnly(member as JsonSchema, definitions, depth + 1))
  )
    return true;
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const branches = schema[keyword];
    if (
      Array.isArray(branches) &&
      branches.length > 0 &&
      branches.every((b) => isObjectOnly(b as JsonSchema, definitions, depth + 1))
    )
      return true;
  }
  return false;
}
