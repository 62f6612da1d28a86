// The one schema walker: raw schemas of any OpenAPI version (or plain JSON Schema) become JSON Schema 2020-12.
// Every `$ref` becomes a shared definition, converted once per direction (only when readOnly/writeOnly make the
// two differ), so recursion is expressed with `$defs` and a schema used by a thousand tools is converted once.

import type { SchemaDialect } from "../document.js";
import { defineOwn, setOwn } from "../own.js";
import { isObject, joinPointer, localRefPointer } from "../pointer.js";
import type { Diagnostic, JsonSchema } from "../types.js";
import type { Direction } from "./direction.js";
import { markDiscriminatedBranches } from "./discriminator.js";
import { KEYWORD_HANDLERS, type KeywordSite, type KeywordWalker, preview } from "./keyword-handlers.js";
import { isValidPattern } from "./keywords.js";
import { compileLinear, hasLargeRepeat } from "./pattern.js";
import { followRefs, propertyAccess, READ_ONLY, RefGraph, WRITE_ONLY } from "./ref-graph.js";

export interface SchemaConverterOptions {
  root: unknown;
  dialect: SchemaDialect;
  file: string;
  /** Prepended to definition keys, so sources of a manifest do not collide. */
  keyPrefix?: string;
  /** Shared definitions, written into. */
  definitions: Record<string, JsonSchema>;
  diagnostics: Diagnostic[];
}

const MAX_REF_HOPS = 32;

export class SchemaConverter implements KeywordWalker {
  private readonly graph: RefGraph;
  private readonly emitted = new Map<string, string>();
  private readonly pending: Array<{ pointer: string; direction: Direction; key: string }> = [];
  private readonly reported = new Set<string>();
  /** Why RE2 cannot run a pattern ("" when it can), by pattern: documents repeat the same few. */
  private readonly refusedPatterns = new Map<string, string>();
  // Where the walk is: the pointer it started from and the segments below it. Pointers are built only for
  // diagnostics, so a walk over thousands of schemas does not build a string per keyword.
  private base = "";
  private segments: string[] = [];
  private readonly memo = {
    input: new WeakMap<object, JsonSchema>(),
    output: new WeakMap<object, JsonSchema>(),
    inputInline: new WeakMap<object, JsonSchema>(),
    outputInline: new WeakMap<object, JsonSchema>(),
  };

  constructor(private readonly options: SchemaConverterOptions) {
    this.graph = new RefGraph(options.root);
  }

  /**
   * Converts a raw schema found at `pointer`. With `inline`, `$ref`s at the top are followed so the result is the
   * named schema itself: a tool's input or output must be an inline object, not a reference.
   */
  convert(
    raw: unknown,
    { direction, pointer, inline = false }: { direction: Direction; pointer: string; inline?: boolean },
  ): JsonSchema {
    // The same raw schema comes back often (a component parameter used by a hundred operations): convert it once.
    // Results are shared, so callers copy before changing them.
    const memo = isObject(raw) ? this.memo[`${direction}${inline ? "Inline" : ""}`] : undefined;
    const known = memo?.get(raw as object);
    if (known !== undefined) return known;
    const result = this.convertOnce(raw, { direction, pointer, inline });
    memo?.set(raw as object, result);
    return result;
  }

  private convertOnce(
    raw: unknown,
    { direction, pointer, inline }: { direction: Direction; pointer: string; inline: boolean },
  ): JsonSchema {
    let schema = raw;
    let at = pointer;
    let named: string | undefined;
    if (inline) {
      for (let hops = 0; isObject(schema) && typeof schema.$ref === "string"; hops++) {
        const ref = schema.$ref;
        const target = localRefPointer(ref);
        const resolved = target === undefined ? undefined : this.graph.resolve(target);
        if (target === undefined || resolved === undefined || hops >= MAX_REF_HOPS)
          return this.at(at, () => this.unresolved(ref));
        schema = resolved;
        at = target;
        named = target;
      }
    }
    // A named schema at the top is converted once as a shared definition; each tool gets a shallow copy.
    const key = named === undefined ? undefined : this.definition(named, direction);
    const result = key === undefined ? this.at(at, () => this.node(schema, direction)) : undefined;
    this.flush();
    if (key === undefined) return result!;
    const body = this.options.definitions[key]!;
    return typeof body === "boolean" ? body : { ...body };
  }

  /** The named schema a raw schema stands for after following `$ref`s (for callers that inspect its shape). */
  resolve(raw: unknown): unknown {
    return followRefs(this.graph.resolver, raw);
  }

  private flush(): void {
    for (let next = this.pending.pop(); next; next = this.pending.pop()) {
      const { pointer, direction, key } = next;
      const body = this.at(pointer, () => this.node(this.graph.resolve(pointer), direction));
      defineOwn(this.options.definitions, key, body);
    }
  }

  /** Runs `walk` with the walk's place set to `pointer`. */
  private at<T>(pointer: string, walk: () => T): T {
    const { base, segments } = this;
    this.base = pointer;
    this.segments = [];
    try {
      return walk();
    } finally {
      this.base = base;
      this.segments = segments;
    }
  }

  /** Converts the subschema at `segment` (and `index`) below the current place. */
  child(raw: unknown, direction: Direction, segment: string, index?: string): JsonSchema {
    this.segments.push(segment);
    if (index !== undefined) this.segments.push(index);
    try {
      return this.node(raw, direction);
    } finally {
      this.segments.length -= index === undefined ? 1 : 2;
    }
  }

  private pointer(...more: string[]): string {
    return joinPointer(this.base, ...this.segments, ...more);
  }

  private node(raw: unknown, direction: Direction): JsonSchema {
    if (typeof raw === "boolean") return raw;
    if (!isObject(raw)) {
      this.lossy(`a schema must be an object, found ${preview(raw)}; it accepts anything here`);
      return {};
    }
    const nullable = raw.nullable === true || raw["x-nullable"] === true;
    if ("$ref" in raw) {
      const ref = typeof raw.$ref === "string" ? this.reference(raw.$ref, direction) : this.unresolved(raw.$ref);
      if (this.options.dialect === "oas31" || this.options.dialect === "jsonschema") {
        // 2020-12: `$ref` applies alongside its siblings.
        const rest = this.keywords(raw, direction);
        return withNull({ ...ref, ...rest }, nullable);
      }
      // OAS 2.0 / 3.0 ignore siblings of `$ref`; a description still helps the model, and `nullable` beside a
      // `$ref` is a common way of saying "or null".
      const described = typeof raw.description === "string" ? { ...ref, description: raw.description } : ref;
      return nullable ? { anyOf: [described, { type: "null" }] } : described;
    }
    return withNull(this.keywords(raw, direction), nullable);
  }

  /** The keywords of one schema through their handlers, then what depends on several of them. */
  private keywords(raw: Record<string, unknown>, direction: Direction): Record<string, unknown> {
    const site: KeywordSite = {
      walker: this,
      raw,
      out: {},
      direction,
      keyword: "",
      value: undefined,
      removed: undefined,
    };
    for (const keyword in raw) {
      const handle = KEYWORD_HANDLERS.get(keyword);
      if (handle === undefined) continue;
      site.keyword = keyword;
      site.value = raw[keyword];
      handle(site);
    }
    const { out } = site;
    if (out.exclusiveMinimum !== undefined && raw.exclusiveMinimum === true) delete out.minimum;
    if (out.exclusiveMaximum !== undefined && raw.exclusiveMaximum === true) delete out.maximum;
    if (out.examples === undefined && raw.example !== undefined) out.examples = [raw.example];
    if (raw.required !== undefined) this.required(raw.required, out, site.removed);
    if (raw.discriminator !== undefined) markDiscriminatedBranches({ raw, out });
    return out;
  }

  properties(value: Record<string, unknown>, direction: Direction, removed: Set<string>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    // readOnly properties are never sent; writeOnly ones never come back.
    const leaves = direction === "input" ? READ_ONLY : WRITE_ONLY;
    for (const name in value) {
      const schema = value[name];
      if ((propertyAccess(this.graph.resolver, schema) & leaves) !== 0) {
        removed.add(name);
        continue;
      }
      const converted = this.child(schema, direction, "properties", name);
      // Boolean schemas are valid 2020-12, but MCP clients check that every property schema is an object.
      setOwn(out, name, converted === true ? {} : converted === false ? { not: {} } : converted);
    }
    return out;
  }

  schemaMap(value: Record<string, unknown>, direction: Direction, keyword: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name in value) {
      if (keyword === "patternProperties" && !isValidPattern(name)) {
        this.lossy(`pattern '${name}' is not a valid regular expression; dropped`, keyword, name);
        continue;
      }
      // A key pattern the server cannot run can be neither ignored nor assumed to match: the entry goes.
      const refused = keyword === "patternProperties" ? this.refusedBy(name) : "";
      if (refused) {
        this.report(
          "warning",
          "pattern-not-enforced",
          this.pointer(keyword, name),
          `pattern '${name}' cannot run in linear time (RE2: ${refused}); dropped`,
        );
        continue;
      }
      setOwn(out, name, this.child(value[name], direction, keyword, name));
    }
    return out;
  }

  /** Warns about a `pattern` that the server checks loosely or not at all (see pattern.ts). */
  checkLinear(pattern: string, keyword: string): void {
    const refused = this.refusedBy(pattern);
    if (refused) {
      const message = `'pattern' ${preview(pattern)} cannot run in linear time (RE2: ${refused}); the server does not check it, the upstream API may`;
      this.report("warning", "pattern-not-enforced", this.pointer(keyword), message);
    } else if (hasLargeRepeat(pattern)) {
      const message = `'pattern' ${preview(pattern)} repeats more than 1,000 times, RE2's limit; the server checks it without those upper bounds`;
      this.report("warning", "pattern-not-enforced", this.pointer(keyword), message);
    }
  }

  private refusedBy(pattern: string): string {
    let refused = this.refusedPatterns.get(pattern);
    if (refused === undefined) {
      const compiled = compileLinear(pattern);
      refused = "refused" in compiled ? compiled.refused : "";
      this.refusedPatterns.set(pattern, refused);
    }
    return refused;
  }

  private required(value: unknown, out: Record<string, unknown>, removed: Set<string> | undefined): void {
    if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
      // Draft-03 style `required: true` on a property says nothing a 2020-12 validator can use.
      if (value !== true && value !== false)
        this.lossy(`'required' must be a list of names, found ${preview(value)}; dropped`, "required");
      return;
    }
    const names = [...new Set(value as string[])].filter((name) => !removed?.has(name));
    if (names.length > 0) out.required = names;
  }

  private reference(ref: string, direction: Direction): Record<string, unknown> {
    const target = localRefPointer(ref);
    if (target === undefined || this.graph.resolve(target) === undefined) return this.unresolved(ref);
    return { $ref: `#/$defs/${this.definition(target, direction)}` };
  }

  /** The key of the shared definition for the schema at `pointer`, queued for conversion on first use. */
  private definition(pointer: string, direction: Direction): string {
    const varies = this.graph.varies(pointer);
    const slot = varies ? `${direction}:${pointer}` : pointer;
    const known = this.emitted.get(slot);
    if (known !== undefined) return known;
    const key = this.newKey(pointer, varies ? direction : undefined);
    this.emitted.set(slot, key);
    defineOwn(this.options.definitions, key, {});
    this.pending.push({ pointer, direction, key });
    return key;
  }

  private newKey(pointer: string, direction: Direction | undefined): string {
    const base = `${this.options.keyPrefix ?? ""}${definitionName(pointer)}${direction ? `.${direction}` : ""}`;
    let key = base;
    for (let n = 2; Object.hasOwn(this.options.definitions, key); n++) key = `${base}_${n}`;
    return key;
  }

  private unresolved(ref: unknown): Record<string, unknown> {
    const message =
      typeof ref === "string" && localRefPointer(ref) === undefined
        ? `$ref '${ref}' points outside the document and was not resolved`
        : `$ref ${preview(ref)} does not resolve: nothing is at that place in the document`;
    this.report("error", "unresolved-ref", this.pointer("$ref"), message);
    return {};
  }

  lossy(message: string, ...segments: string[]): void {
    this.report("warning", "lossy-schema", this.pointer(...segments), message);
  }

  private report(severity: Diagnostic["severity"], code: string, pointer: string, message: string): void {
    const id = `${code}\u0000${pointer}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.options.diagnostics.push({ severity, code, message, file: this.options.file, pointer });
  }
}

/** Adds `null` to what a schema accepts (OAS 3.0 `nullable`, Swagger `x-nullable`). */
function withNull(schema: Record<string, unknown>, nullable: boolean): Record<string, unknown> {
  if (!nullable) return schema;
  const out = { ...schema };
  if (typeof out.type === "string") out.type = out.type === "null" ? "null" : [out.type, "null"];
  else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  const composite =
    out.allOf !== undefined || out.oneOf !== undefined || out.anyOf !== undefined || out.$ref !== undefined;
  if (out.type === undefined && composite) return { anyOf: [out, { type: "null" }] };
  return out;
}

/** A readable definition key from where the schema lives: `#/components/schemas/Pet` → `Pet`. */
export function definitionName(pointer: string): string {
  const segments = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const named =
    (segments.length === 3 && segments[0] === "components" && segments[1] === "schemas") ||
    (segments.length === 2 && (segments[0] === "definitions" || segments[0] === "$defs" || segments[0] === "schemas"));
  const words = named ? segments.slice(-1) : segments.slice(-2);
  const name = words.join("_").replace(/[^A-Za-z0-9_.-]+/g, "_");
  return name.length > 0 ? name.slice(0, 80) : "schema";
}
