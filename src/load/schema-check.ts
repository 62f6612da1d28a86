// Validates an action definition or manifest against its published JSON Schema (schemas/*.schema.json) and
// reports every error at once, each with its file, line, column and JSON pointer.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { UserError } from "../catalog/errors.js";
import type { Parsed } from "./parse.js";
import { locatePointers } from "./locate.js";
import { explainSchemaErrors } from "./schema-errors.js";

const compiled = new Map<string, ValidateFunction>();

function validator(schemaName: string): ValidateFunction {
  let validate = compiled.get(schemaName);
  if (!validate) {
    // Loaded on first use: Ajv adds ~10 MB to a process that loads only OpenAPI documents.
    const { Ajv2020 } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    const schema = JSON.parse(
      readFileSync(new URL(`../../schemas/${schemaName}.schema.json`, import.meta.url), "utf8"),
    );
    validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
    compiled.set(schemaName, validate);
  }
  return validate;
}

/** Every way `parsed` breaks its schema, as `file:line:col #/pointer: message` lines; empty when valid. */
export function schemaProblems({
  schemaName,
  parsed,
  file,
}: {
  schemaName: "action-definition" | "manifest" | "settings";
  parsed: Parsed;
  file: string;
}): string[] {
  const validate = validator(schemaName);
  if (validate(parsed.value)) return [];
  return problemLines({ parsed, file, problems: explainSchemaErrors(validate.errors ?? []) });
}

/** Problems as `file:line:col #/pointer: message` lines, located in one pass over the text. */
export function problemLines({
  parsed,
  file,
  problems,
}: {
  parsed: Parsed;
  file: string;
  problems: Array<{ pointer: string; message: string }>;
}): string[] {
  const places = locatePointers({ text: parsed.text, pointers: problems.map((p) => p.pointer) });
  return problems.map(({ pointer, message }) => {
    const place = places.get(pointer);
    return `${file}${place ? `:${place.line}:${place.column}` : ""} #${pointer}: ${message}`;
  });
}

export function problemLine({
  parsed,
  file,
  pointer,
  message,
}: {
  parsed: Parsed;
  file: string;
  pointer: string;
  message: string;
}): string {
  return problemLines({ parsed, file, problems: [{ pointer, message }] })[0]!;
}

/** Throws one error listing every problem, if there are any. */
export function refuse({ problems, file, what }: { problems: string[]; file: string; what: string }): void {
  if (problems.length === 0) return;
  throw new UserError({
    code: "E_INVALID_DEFINITION",
    message: `${file}: invalid ${what}:\n${problems.map((p) => `  ${p}`).join("\n")}`,
  });
}
