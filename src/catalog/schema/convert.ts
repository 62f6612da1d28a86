// The one schema walker: raw schemas of any OpenAPI version (or plain JSON Schema) become JSON Schema 2020-12.
// Every `$ref` becomes a shared definition, converted once per direction (only when readOnly/writeOnly make the
// two differ), so recursion is expressed with `$defs` and a schema used by a thousand tools is converted once.

import type { SchemaDialect } from "../document.js";
import { defineOwn, setOwn } from "../own.js";
import { isObject, joinPointer, localRefPointer } from "../pointer.js";
import type { Diagnostic, JsonSchema } from "../types.js";
import { isValidPattern, JSON_TYPES, VALUE_KEYWORDS } from "./keywords.js";
import { compileLinear, hasLargeRepeat } from "./pattern.js";
import { followRefs, propertyAccess, READ_ONLY, RefGraph, WRITE_ONLY } from "./ref-graph.js";

export type Direction = "input" | "output";

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

const SINGLE = new Set(["not", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "contentSchema"]);
const MAX_REF_HOPS = 32;

export class SchemaConverter {
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
  convert(raw: unknown, { direction, pointer, inline = false }: { direction: Direction; pointer: string; inline?: boolean }): JsonSchema {
    // The same raw schema comes back often (a component parameter used by a hundred operations): convert it once.
    // Results are shared, so callers copy before changing them.
    const memo = isObject(raw) ? this.memo[`${direction}${inline ? "Inline" : ""}`] : undefined;
    const known = memo?.get(raw as object);
    if (known !== undefined) return known;
    const result = this.convertOnce(raw, { direction, pointer, inline });
    memo?.set(raw as object, result);
    return result;
  }

  private convertOnce(raw: unknown, { direction, pointer, inline }: { direction: Direction; pointer: string; inline: boolean }): JsonSchema {
    let schema = raw;
    let at = pointer;
    let named: string | undefined;
    if (inline) {
      for (let hops = 0; isObject(schema) && typeof schema.$ref === "string"; hops++) {
        const ref = schema.$ref;
        const target = localRefPointer(ref);
        const resolved = target === undefined ? undefined : this.graph.resolve(target);
        if (target === undefined || resolved === undefined || hops >= MAX_REF_HOPS) return this.at(at, () => this.unresolved(ref));
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
  private child(raw: unknown, direction: Direction, segment: string, index?: string): JsonSchema {
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
      this.lossy(`a schema must be an object, found ${describe(raw)}; it accepts anything here`);
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

  private keywords(raw: Record<string, unknown>, direction: Direction): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let removed: Set<string> | undefined;
    for (const keyword in raw) {
      const value = raw[keyword];
      const check = VALUE_KEYWORDS[keyword];
      if (check) {
        if (check(value)) out[keyword] = value;
        else this.lossy(`'${keyword}' has an invalid value ${describe(value)} and was dropped`, keyword);
        continue;
      }
      switch (keyword) {
        case "type":
          this.type(value, out);
          break;
        case "enum":
        case "examples":
          if (Array.isArray(value)) out[keyword] = value;
          else if (keyword === "enum") this.lossy(`'enum' must be an array, found ${describe(value)}; dropped`, keyword);
          break;
        case "pattern":
          if (typeof value === "string" && isValidPattern(value)) {
            // Kept for the model to read even when the server cannot check it.
            out.pattern = value;
            this.checkLinear(value, keyword);
          } else {
            this.lossy(`'pattern' ${describe(value)} is not a valid regular expression and was dropped`, keyword);
          }
          break;
        case "exclusiveMinimum":
        case "exclusiveMaximum": {
          // OAS 2.0 / 3.0 write a boolean beside minimum/maximum; 2020-12 wants the bound itself.
          const bound = keyword === "exclusiveMinimum" ? raw.minimum : raw.maximum;
          if (typeof value === "number") out[keyword] = value;
          else if (value === true && typeof bound === "number") out[keyword] = bound;
          break;
        }
        case "properties":
          if (isObject(value)) {
            removed = new Set();
            out.properties = this.properties(value, direction, removed);
          } else {
            this.lossy(`'properties' must be an object, found ${describe(value)}; dropped`, keyword);
          }
          break;
        case "patternProperties":
        case "dependentSchemas":
          if (isObject(value)) out[keyword] = this.schemaMap(value, direction, keyword);
          break;
        case "additionalProperties":
        case "unevaluatedProperties":
          if (typeof value === "boolean") out[keyword] = value;
          else if (isObject(value)) out[keyword] = this.child(value, direction, keyword);
          break;
        case "items":
          if (Array.isArray(value)) {
            // Draft-04 tuples, seen in OAS 3.0 documents although it forbids them.
            out.prefixItems = value.map((item, i) => this.child(item, direction, keyword, String(i)));
            if (isObject(raw.additionalItems) || typeof raw.additionalItems === "boolean") {
              out.items = this.child(raw.additionalItems, direction, "additionalItems");
            }
          } else if (typeof value === "boolean" || isObject(value)) {
            out.items = this.child(value, direction, keyword);
          }
          break;
        case "prefixItems":
          if (Array.isArray(value)) out.prefixItems = value.map((item, i) => this.child(item, direction, keyword, String(i)));
          break;
        case "allOf":
        case "anyOf":
        case "oneOf":
          if (Array.isArray(value) && value.length > 0) {
            out[keyword] = value.map((item, i) => this.child(item, direction, keyword, String(i)));
          } else {
            this.lossy(`'${keyword}' must be a non-empty array, found ${describe(value)}; dropped`, keyword);
          }
          break;
        case "required":
          break; // after properties, which may drop some
        default:
          if (SINGLE.has(keyword) && (isObject(value) || typeof value === "boolean")) out[keyword] = this.child(value, direction, keyword);
        // Anything else (x-*, xml, externalDocs, readOnly/writeOnly, $id, vendor fields) is left out: it is not
        // 2020-12 validation, or it was handled above.
      }
    }
    if (out.exclusiveMinimum !== undefined && raw.exclusiveMinimum === true) delete out.minimum;
    if (out.exclusiveMaximum !== undefined && raw.exclusiveMaximum === true) delete out.maximum;
    if (out.examples === undefined && raw.example !== undefined) out.examples = [raw.example];
    if (raw.required !== undefined) this.required(raw.required, out, removed);
    if (raw.discriminator !== undefined) this.discriminator(raw, out);
    return out;
  }

  private type(value: unknown, out: Record<string, unknown>): void {
    if (value === "file") {
      // Swagger 2.0 file parameters: binary content.
      out.type = "string";
      out.format ??= "binary";
    } else if (typeof value === "string" && JSON_TYPES.has(value)) {
      out.type = value;
    } else if (Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === "string" && JSON_TYPES.has(t))) {
      out.type = [...new Set(value)];
    } else {
      this.lossy(`'type' ${describe(value)} is not a JSON Schema type and was dropped`, "type");
    }
  }

  private properties(value: Record<string, unknown>, direction: Direction, removed: Set<string>): Record<string, unknown> {
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

  private schemaMap(value: Record<string, unknown>, direction: Direction, keyword: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name in value) {
      if (keyword === "patternProperties" && !isValidPattern(name)) {
        this.lossy(`pattern '${name}' is not a valid regular expression; dropped`, keyword, name);
        continue;
      }
      // A key pattern the server cannot run can be neither ignored nor assumed to match: the entry goes.
      const refused = keyword === "patternProperties" ? this.refusedBy(name) : "";
      if (refused) {
        this.report("warning", "pattern-not-enforced", this.pointer(keyword, name), `pattern '${name}' cannot run in linear time (RE2: ${refused}); dropped`);
        continue;
      }
      setOwn(out, name, this.child(value[name], direction, keyword, name));
    }
    return out;
  }

  /** Warns about a `pattern` that the server checks loosely or not at all (see pattern.ts). */
  private checkLinear(pattern: string, keyword: string): void {
    const refused = this.refusedBy(pattern);
    if (refused) {
      const message = `'pattern' ${describe(pattern)} cannot run in linear time (RE2: ${refused}); the server does not check it, the upstream API may`;
      this.report("warning", "pattern-not-enforced", this.pointer(keyword), message);
    } else if (hasLargeRepeat(pattern)) {
      const message = `'pattern' ${describe(pattern)} repeats more than 1,000 times, RE2's limit; the server checks it without those upper bounds`;
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
      if (value !== true && value !== false) this.lossy(`'required' must be a list of names, found ${describe(value)}; dropped`, "required");
      return;
    }
    const names = [...new Set(value as string[])].filter((name) => !removed?.has(name));
    if (names.length > 0) out.required = names;
  }

  /**
   * An OpenAPI discriminator on oneOf/anyOf of `$ref`s: each branch is told the discriminator value(s) that select
   * it, so the model sees which value goes with which shape. The keyword itself is not JSON Schema.
   */
  private discriminator(raw: Record<string, unknown>, out: Record<string, unknown>): void {
    const discriminator = raw.discriminator;
    if (!isObject(discriminator) || typeof discriminator.propertyName !== "string") return;
    const property = discriminator.propertyName;
    const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {};
    for (const keyword of ["oneOf", "anyOf"] as const) {
      const rawBranches = raw[keyword];
      const branches = out[keyword];
      if (!Array.isArray(rawBranches) || !Array.isArray(branches)) continue;
      rawBranches.forEach((branch, i) => {
        if (!isObject(branch) || typeof branch.$ref !== "string") return;
        const target = localRefPointer(branch.$ref);
        if (target === undefined) return;
        const name = target.slice(target.lastIndexOf("/") + 1);
        const values = Object.entries(mapping)
          .filter(([, ref]) => typeof ref === "string" && (ref === branch.$ref || ref === name || localRefPointer(ref) === target))
          .map(([value]) => value);
        if (values.length === 0) values.push(name);
        const selector = values.length === 1 ? { const: values[0] } : { enum: values };
        branches[i] = { ...(branches[i] as object), type: "object", properties: Object.fromEntries([[property, selector]]), required: [property] };
      });
    }
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
        : `$ref ${describe(ref)} does not resolve: nothing is at that place in the document`;
    this.report("error", "unresolved-ref", this.pointer("$ref"), message);
    return {};
  }

  private lossy(message: string, ...segments: string[]): void {
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
  const composite = out.allOf !== undefined || out.oneOf !== undefined || out.anyOf !== undefined || out.$ref !== undefined;
  if (out.type === undefined && composite) return { anyOf: [out, { type: "null" }] };
  return out;
}

/** A readable definition key from where the schema lives: `#/components/schemas/Pet` → `Pet`. */
export function definitionName(pointer: string): string {
  const segments = pointer.split("/").slice(1).map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const named =
    (segments.length === 3 && segments[0] === "components" && segments[1] === "schemas") ||
    (segments.length === 2 && (segments[0] === "definitions" || segments[0] === "$defs" || segments[0] === "schemas"));
  const words = named ? segments.slice(-1) : segments.slice(-2);
  const name = words.join("_").replace(/[^A-Za-z0-9_.-]+/g, "_");
  return name.length > 0 ? name.slice(0, 80) : "schema";
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

