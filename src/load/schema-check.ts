// Validates an action definition or manifest against its published JSON Schema (schemas/*.schema.json) and
// reports every error at once, each with its file, line, column and JSON pointer.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { UserError } from "../catalog/errors.js";
import { joinPointer } from "../catalog/pointer.js";
import type { Parsed } from "./parse.js";
import { locatePointer } from "./parse.js";

const compiled = new Map<string, ValidateFunction>();
const SECRET_PATTERN = "^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$";

function validator(schemaName: string): ValidateFunction {
  let validate = compiled.get(schemaName);
  if (!validate) {
    // Loaded on first use: Ajv adds ~10 MB to a process that loads only OpenAPI documents.
    const { Ajv2020 } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    const schema = JSON.parse(readFileSync(new URL(`../../schemas/${schemaName}.schema.json`, import.meta.url), "utf8"));
    validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
    compiled.set(schemaName, validate);
  }
  return validate;
}

/** Every way `parsed` breaks its schema, as `file:line:col #/pointer: message` lines; empty when valid. */
export function schemaProblems({ schemaName, parsed, file }: { schemaName: "action-definition" | "manifest" | "settings"; parsed: Parsed; file: string }): string[] {
  const validate = validator(schemaName);
  if (validate(parsed.value)) return [];
  const lines = new Set<string>();
  for (const error of validate.errors ?? []) {
    const described = describe(error);
    if (described) lines.add(problemLine({ parsed, file, ...described }));
  }
  return [...lines];
}

export function problemLine({ parsed, file, pointer, message }: { parsed: Parsed; file: string; pointer: string; message: string }): string {
  const place = locatePointer({ text: parsed.text, pointer });
  return `${file}${place ? `:${place.line}:${place.col}` : ""} #${pointer}: ${message}`;
}

/** Throws one error listing every problem, if there are any. */
export function refuse({ problems, file, what }: { problems: string[]; file: string; what: string }): void {
  if (problems.length === 0) return;
  throw new UserError({ code: "E_INVALID_DEFINITION", message: `${file}: invalid ${what}:\n${problems.map((p) => `  ${p}`).join("\n")}` });
}

function describe(error: ErrorObject): { pointer: string; message: string } | undefined {
  const { instancePath, params } = error;
  switch (error.keyword) {
    case "if":
      return undefined; // the branch's own errors say what is wrong
    case "additionalProperties":
      return { pointer: joinPointer(instancePath, String(params.additionalProperty)), message: `unknown field '${params.additionalProperty}'` };
    case "required":
      return { pointer: instancePath, message: `missing required field '${params.missingProperty}'` };
    case "enum":
      return { pointer: instancePath, message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "pattern":
      if (params.pattern === SECRET_PATTERN) {
        return { pointer: instancePath, message: "must be a ${VAR} reference to an environment variable: secrets are never written in the file" };
      }
      return { pointer: instancePath, message: `must match ${params.pattern}` };
    default:
      return { pointer: instancePath, message: error.message ?? "is not valid" };
  }
}

