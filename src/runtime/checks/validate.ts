// Validation of a tool's arguments and of what the upstream returns, with Ajv (2020-12). Each shared definition
// is registered once as a schema of its own and each tool's schemas are compiled on first use, then cached: a
// 1,000-tool server pays only for the tools that are called.
//
// Bounded: a value is checked up to its first mismatch (Ajv without `allErrors`), which costs at most one pass
// over it. Only a value that fails and is small (THOROUGH_VALUES) is checked again for every mismatch, so the
// model sees all its mistakes in an ordinary call; two million wrong integers cost one mismatch, not two million.

import { createRequire } from "node:module";
import type { Ajv2020, CodeOptions, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { compileLinear } from "../../catalog/schema/pattern.js";
import type { JsonSchema, Tool } from "../../catalog/types.js";
import { atMostValues } from "./bounds.js";
import { useLinearUniqueItems } from "./unique-items.js";

// Ajv is loaded at the first check, not with the engine: a server answers tools/list without it.
const load = createRequire(import.meta.url);
const DEFINITION_PREFIX = "urn:openapi-mcp:def:";
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
/** A failing value holding at most this many values is checked again for all its mismatches. */
export const THOROUGH_VALUES = 1_000;
const ENUM_VALUES_SHOWN = 20;

export interface Mismatch {
  /** JSON pointer to the offending value, "" for the whole. */
  pointer: string;
  message: string;
  /** The value could not be checked at all (see `check`). */
  uncheckable?: true;
}

/** Mismatches found; `partial` when only the first were looked for (the value was too big to look for all). */
export type Mismatches = Mismatch[] & { partial?: true };

const UNCHECKABLE: Mismatch = {
  pointer: "",
  message: "cannot be checked: the schema's chain of $refs is too long for this server",
  uncheckable: true,
};
type Mode = "first" | "all";

export class Validator {
  private readonly definitions: Record<string, JsonSchema>;
  private readonly ajv: Partial<Record<Mode, Ajv2020>> = {};
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly uncompilable = new Set<string>();

  constructor({ definitions }: { definitions: Record<string, JsonSchema> }) {
    this.definitions = definitions;
  }

  /** Mismatches of a tool's arguments with its input schema; empty when they are valid. */
  arguments(tool: Tool, args: unknown): Mismatches {
    return this.check(`in:${tool.name}`, tool.inputSchema, args);
  }

  /** Mismatches of a response with the tool's output schema (as wrapped); empty when it conforms or there is none. */
  output(tool: Tool, data: unknown): Mismatches {
    return tool.outputSchema ? this.check(`out:${tool.name}`, tool.outputSchema, data) : [];
  }

  private check(key: string, schema: JsonSchema, value: unknown): Mismatches {
    const first = this.run({ mode: "first", key, schema, value });
    if (first === undefined) return [UNCHECKABLE];
    if (first.length === 0) return first;
    if (!atMostValues(value, THOROUGH_VALUES)) return Object.assign(first, { partial: true as const });
    return this.run({ mode: "all", key, schema, value }) ?? first;
  }

  /** The mismatches in one mode, or undefined when the schema cannot be compiled. */
  private run({
    mode,
    key,
    schema,
    value,
  }: {
    mode: Mode;
    key: string;
    schema: JsonSchema;
    value: unknown;
  }): Mismatch[] | undefined {
    const id = `${mode}:${key}`;
    let validate = this.compiled.get(id);
    try {
      if (!validate) {
        if (this.uncompilable.has(id)) return undefined;
        validate = this.instance(mode).compile(shared(schema as object));
        this.compiled.set(id, validate);
      }
      if (validate(value)) return [];
    } catch (error) {
      // Ajv compiles a `$ref`'s target inside the schema that refers to it: a chain of a few hundred references
      // runs out of call stack. That stops the call with a message, not the process (nor is it tried again).
      if (!(error instanceof RangeError)) throw error;
      if (!validate) this.uncompilable.add(id);
      return undefined;
    }
    return (validate.errors ?? []).map(mismatchOf).filter(unique());
  }

  /**
   * One Ajv per mode (`allErrors` is set for an instance), each made when first needed: registering GitHub's 600
   * definitions takes ~150 ms a server need not spend to start.
   */
  private instance(mode: Mode): Ajv2020 {
    const made = this.ajv[mode];
    if (made) return made;
    const { Ajv2020 } = load("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    // ajv-formats is CommonJS with a default export that ESM sees nested.
    const formats = load("ajv-formats") as { default?: unknown };
    const addFormats = (formats.default ?? formats) as (ajv: Ajv2020) => void;
    // ownProperties: an argument or field named `constructor` or `toString` is looked up on the value itself, not
    // found on Object.prototype (which made an omitted optional `constructor` "must be string").
    const ajv = new Ajv2020({
      strict: false,
      allErrors: mode === "all",
      logger: false,
      inlineRefs: false,
      ownProperties: true,
      code: { regExp: linearRegExp },
    });
    addFormats(ajv);
    useLinearUniqueItems(ajv);
    // OpenAPI's own formats: the integer ranges are checked, the others are descriptions.
    ajv.addFormat("int32", {
      type: "number",
      validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max,
    });
    ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
    for (const format of ["float", "double", "byte", "binary", "password"]) ajv.addFormat(format, true);
    // The second instance takes the definitions as the first checked them (about a third of the time for GitHub's).
    const checked = Object.keys(this.ajv).length > 0;
    for (const [key, definition] of Object.entries(this.definitions)) {
      ajv.addSchema(
        typeof definition === "boolean" ? definition : shared(definition),
        DEFINITION_PREFIX + key,
        undefined,
        !checked,
      );
    }
    this.ajv[mode] = ajv;
    return ajv;
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
    return "test" in compiled
      ? { test: (text: string) => compiled.test.test(text), toString: () => key }
      : { test: () => true, toString: () => key };
  },
  { code: "linearRegExp" },
);

/** A schema whose `#/$defs/<key>` references point at the definitions registered on their own. */
function shared(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', `"${DEFINITION_PREFIX}`));
}

/** An Ajv error as the model reads it: the place in the value, and what was wanted there. */
function mismatchOf(error: ErrorObject): Mismatch {
  const { instancePath: pointer, params } = error;
  switch (error.keyword) {
    case "additionalProperties":
      return { pointer: `${pointer}/${String(params.additionalProperty)}`, message: `is not an expected field` };
    case "required":
      return { pointer: `${pointer}/${String(params.missingProperty)}`, message: "is required but missing" };
    case "enum": {
      const allowed = params.allowedValues as unknown[];
      const named = allowed.slice(0, ENUM_VALUES_SHOWN).map((v) => JSON.stringify(v));
      return {
        pointer,
        message: `must be one of ${named.join(", ")}${allowed.length > ENUM_VALUES_SHOWN ? `, … (${allowed.length} values in all)` : ""}`,
      };
    }
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
