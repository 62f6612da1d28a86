// Arguments a tool's input schema accepts, made up from the schema alone: every required property with the
// plainest value its schema allows (an enum's first value, a minimum, a date for a date format). Good enough for a
// dry run of any real spec's tool; what it cannot satisfy the engine reports as invalid arguments.

const DEPTH = 12;

export function sampleArguments({ schema, definitions }) {
  const value = sample({ schema, definitions, depth: 0 });
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function sample({ schema, definitions, depth }) {
  if (depth > DEPTH || schema === true || schema === undefined) return "x";
  if (schema === false || typeof schema !== "object") return null;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/$defs/")) {
    return sample({ schema: definitions[schema.$ref.slice("#/$defs/".length)], definitions, depth: depth + 1 });
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branch = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (branch !== undefined) return sample({ schema: branch, definitions, depth: depth + 1 });
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((part) => sample({ schema: part, definitions, depth: depth + 1 }));
    return parts.every((p) => p && typeof p === "object" && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? "null") : schema.type;
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "object": {
      const result = {};
      for (const name of schema.required ?? []) {
        result[name] = sample({ schema: schema.properties?.[name] ?? true, definitions, depth: depth + 1 });
      }
      return result;
    }
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () =>
        sample({ schema: schema.items ?? true, definitions, depth: depth + 1 }),
      );
    case "integer":
    case "number":
      return schema.minimum ?? (typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return sampleString(schema);
  }
}

function sampleString(schema) {
  if (schema.contentEncoding === "base64" || schema.format === "byte") return "eA==";
  switch (schema.format) {
    case "date-time":
      return "2026-01-01T00:00:00Z";
    case "date":
      return "2026-01-01";
    case "email":
      return "someone@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    default:
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
  }
}
