// Validation of a tool's arguments and of what the upstream returns, with Ajv (2020-12). Each shared definition
// is registered once as a schema of its own and each tool's schemas are compiled on first use, then cached: a
// 1,000-tool server pays only for the tools that are called.

import { createRequire } from "node:module";
import type { Ajv2020, CodeOptions, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { compileLinear } from "../catalog/schema/pattern.js";
import type { JsonSchema, Tool } from "../catalog/types.js";

// Ajv is loaded at the first check, not with the engine: a server answers tools/list without it.
const load = createRequire(import.meta.url);
const DEFINITION_PREFIX = "urn:openapi-mcp:def:";
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export interface Mismatch {
  /** JSON pointer to the offending value, "" for the whole. */
  pointer: string;
  message: string;
  /** The value could not be checked at all (see `check`). */
  uncheckable?: true;
}

const UNCHECKABLE: Mismatch = { pointer: "", message: "cannot be checked: the schema's chain of $refs is too long for this server", uncheckable: true };

export class Validator {
  private instance: Ajv2020 | undefined;
  private readonly definitions: Record<string, JsonSchema>;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly uncompilable = new Set<string>();

  constructor({ definitions }: { definitions: Record<string, JsonSchema> }) {
    this.definitions = definitions;
  }

  /** Made at the first check: registering GitHub's 600 definitions takes ~150 ms a server need not spend to start. */
  private get ajv(): Ajv2020 {
    if (this.instance) return this.instance;
    // ownProperties: an argument or field named `constructor` or `toString` is looked up on the value itself, not
    // found on Object.prototype (which made an omitted optional `constructor` "must be string").
    const { Ajv2020 } = load("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    // ajv-formats is CommonJS with a default export that ESM sees nested.
    const formats = load("ajv-formats") as { default?: unknown };
    const addFormats = (formats.default ?? formats) as (ajv: Ajv2020) => void;
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, inlineRefs: false, ownProperties: true, code: { regExp: linearRegExp } });
    addFormats(ajv);
    // OpenAPI's own formats: the integer ranges are checked, the others are descriptions.
    ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max });
    ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
    for (const format of ["float", "double", "byte", "binary", "password"]) ajv.addFormat(format, true);
    for (const [key, definition] of Object.entries(this.definitions)) {
      ajv.addSchema(typeof definition === "boolean" ? definition : shared(definition), DEFINITION_PREFIX + key);
    }
    this.instance = ajv;
    return ajv;
  }

  /** Mismatches of a tool's arguments with its input schema; empty when they are valid. */
  arguments(tool: Tool, args: unknown): Mismatch[] {
    return this.check(`in:${tool.name}`, tool.inputSchema, args);
  }

  /** Mismatches of a response with the tool's output schema (as wrapped); empty when it conforms or there is none. */
  output(tool: Tool, data: unknown): Mismatch[] {
    return tool.outputSchema ? this.check(`out:${tool.name}`, tool.outputSchema, data) : [];
  }

  private check(key: string, schema: JsonSchema, value: unknown): Mismatch[] {
    let validate = this.compiled.get(key);
    try {
      if (!validate) {
        if (this.uncompilable.has(key)) return [UNCHECKABLE];
        validate = this.ajv.compile(shared(schema as object));
        this.compiled.set(key, validate);
      }
      if (validate(value)) return [];
    } catch (error) {
      // Ajv compiles a `$ref`'s target inside the schema that refers to it: a chain of a few hundred references
      // runs out of call stack. That stops the call with a message, not the process (nor is it tried again).
      if (!(error instanceof RangeError)) throw error;
      if (!validate) this.uncompilable.add(key);
      return [UNCHECKABLE];
    }
    return (validate.errors ?? []).map(describe).filter(unique());
  }
}

/**
 * Ajv's engine for `pattern` and `patternProperties`: RE2, linear in the text's length, so no argument or response
 * can hold the process. A pattern RE2 cannot run is not checked (the loader warned about it, and the converter
 * dropped such `patternProperties`).
 */
const linearRegExp: NonNullable<CodeOptions["regExp"]> = Object.assign(
  (pattern: string) => {
    const compiled = compileLinear(pattern);
    // Ajv keys compiled patterns by their text: each must have its own.
    const key = `/${pattern}/u`;
    return "test" in compiled ? { test: (text: string) => compiled.test.test(text), toString: () => key } : { test: () => true, toString: () => key };
  },
  { code: "linearRegExp" },
);

/** A schema whose `#/$defs/<key>` references point at the definitions registered on their own. */
function shared(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', `"${DEFINITION_PREFIX}`));
}

function describe(error: ErrorObject): Mismatch {
  const { instancePath: pointer, params } = error;
  switch (error.keyword) {
    case "additionalProperties":
      return { pointer: `${pointer}/${String(params.additionalProperty)}`, message: `is not an expected field` };
    case "required":
      return { pointer: `${pointer}/${String(params.missingProperty)}`, message: "is required but missing" };
    case "enum":
      return { pointer, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "type":
      return { pointer, message: `must be ${String(params.type).replaceAll(",", " or ")}` };
    default:
      return { pointer, message: error.message ?? "is not valid" };
  }
}

function unique(): (mismatch: Mismatch) => boolean {
  const seen = new Set<string>();
  return (m) => {
    const key = `${m.pointer} ${m.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** `/body/name` → `body.name`, `` → `(the whole value)`: how a mismatch is named to the model. */
export function placeOf(pointer: string): string {
  if (pointer === "") return "the arguments";
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join("");
}
