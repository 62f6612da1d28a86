// Conformance to the official OpenAPI JSON Schemas, checked by swagger-parser for `validate`. Real documents
// often break the schema in ways the server tolerates, so these are warnings; what stops the server is reported
// by the loader itself.

import type { Diagnostic } from "../../catalog/types.js";

const MAX_REPORTED = 50;
// Ajv's summary lines for oneOf/anyOf say nothing the branch errors do not.
const NOISE = [/must match exactly one schema in oneOf/, /must match a schema in anyOf/, /must have required property '\$ref'/];

export async function conformanceWarnings({ root, file, format }: { root: unknown; file: string; format: string }): Promise<Diagnostic[]> {
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  try {
    // A copy: validation dereferences in place. External refs are already bundled (or refused) by now.
    await SwaggerParser.validate(structuredClone(root) as never, { resolve: { external: false }, validate: { schema: true, spec: false } } as never);
    return [];
  } catch (error) {
    const details = (error as { details?: Array<{ instancePath?: string; message?: string }> }).details;
    const lines = details?.length
      ? details.map((d) => ({ pointer: d.instancePath ?? "", message: d.message ?? "is not valid" }))
      : [{ pointer: "", message: (error as Error).message }];
    const seen = new Set<string>();
    const result: Diagnostic[] = [];
    for (const { pointer, message } of lines) {
      const key = `${pointer} ${message}`;
      if (seen.has(key) || NOISE.some((noise) => noise.test(message))) continue;
      seen.add(key);
      result.push({ severity: "warning", code: "openapi-schema", message: `does not conform to the ${format} schema: ${message}`, file, pointer });
    }
    if (result.length > MAX_REPORTED) {
      const more = result.length - MAX_REPORTED;
      result.length = MAX_REPORTED;
      result.push({ severity: "warning", code: "openapi-schema", message: `… and ${more} more places that do not conform to the ${format} schema`, file });
    }
    return result;
  }
}
