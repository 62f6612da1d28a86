// Values from a JSON Schema (2020-12, as tools/list gives it: self-contained, `$ref`s into its own `$defs`): what
// a well-behaved model would send. Types, enums and consts, required and optional properties, `allOf` merged,
// one branch of `anyOf`/`oneOf`, arrays within their bounds, numbers within theirs, strings by format or pattern.
// Not every value is valid (a `oneOf` may match twice, a `not` is ignored): the test asks an independent
// validator, and only counts.

import { stringMatching } from "./regex.js";
import type { Rng } from "./rng.js";

export type Schema = { [key: string]: unknown } | boolean;
type SchemaObject = { [key: string]: unknown };

/** Past this nesting depth, optional properties and array items are left out, so recursive schemas end. */
const SHALLOW = 4;
/** Past this one, required properties still recursing get an empty object: the value is then likely invalid. */
const GIVE_UP = 10;

const TYPES = ["string", "integer", "number", "boolean", "object", "array", "null"] as const;
type TypeName = (typeof TYPES)[number];

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An own enumerable property, even when the key is `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export class ValueGenerator {
  constructor(
    private readonly root: SchemaObject,
    private readonly rng: Rng,
  ) {}

  value(schema: Schema = this.root, depth = 0): unknown {
    const flat = this.flatten(schema, 0);
    if (flat === false) return null;
    if (flat === true) return this.anyValue(depth);
    if ("const" in flat) return structuredClone(flat.const);
    if (Array.isArray(flat.enum) && flat.enum.length > 0) return structuredClone(this.rng.pick(flat.enum));
    // A model often copies the spec's own example or default.
    const examples: unknown[] = Array.isArray(flat.examples)
      ? [...flat.examples]
      : "example" in flat
        ? [flat.example]
        : [];
    if ("default" in flat) examples.push(flat.default);
    if (examples.length > 0 && this.rng.bool(0.2)) return structuredClone(this.rng.pick(examples));
    switch (this.typeOf(flat, depth)) {
      case "null":
        return null;
      case "boolean":
        return this.rng.bool();
      case "integer":
        return this.integer(flat);
      case "number":
        return this.number(flat);
      case "string":
        return this.string(flat);
      case "array":
        return this.array(flat, depth);
      case "object":
        return this.object(flat, depth);
    }
  }

  /** `$ref` followed, `allOf` merged, one `anyOf`/`oneOf` branch chosen and merged: one plain schema object. */
  private flatten(schema: Schema | undefined, hops: number): Schema {
    if (schema === undefined) return true;
    if (typeof schema === "boolean") return schema;
    if (hops > 32) return true;
    let current: SchemaObject = schema;
    if (typeof current.$ref === "string") {
      const { $ref, ...rest } = current;
      const target = this.flatten(this.resolve($ref), hops + 1);
      if (target === false) return false;
      current = merge(target === true ? {} : target, rest);
    }
    if (Array.isArray(current.allOf)) {
      const { allOf, ...rest } = current;
      let merged: SchemaObject = this.asObject(this.flatten(rest, hops + 1));
      for (const part of allOf as Schema[]) merged = merge(merged, this.asObject(this.flatten(part, hops + 1)));
      current = merged;
    }
    for (const keyword of ["oneOf", "anyOf"] as const) {
      const branches = current[keyword];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const { [keyword]: _dropped, ...rest } = current;
      // Rather not the null branch: a value says more than its absence.
      const preferred = (branches as Schema[]).filter((b) => !(isPlainObject(b) && b.type === "null"));
      const branch = this.rng.pick(preferred.length > 0 && this.rng.bool(0.9) ? preferred : (branches as Schema[]));
      current = merge(this.asObject(this.flatten(rest, hops + 1)), this.asObject(this.flatten(branch, hops + 1)));
    }
    return current;
  }

  private asObject(schema: Schema): SchemaObject {
    return schema === true ? {} : schema === false ? { not: {} } : schema;
  }

  private resolve(ref: string): Schema | undefined {
    if (!ref.startsWith("#")) return undefined;
    let current: unknown = this.root;
    let pointer = ref.slice(1);
    try {
      pointer = decodeURIComponent(pointer);
    } catch {
      // Not percent-encoded after all.
    }
    if (pointer === "") return this.root;
    for (const raw of pointer.slice(1).split("/")) {
      const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
      if (!isPlainObject(current) && !Array.isArray(current)) return undefined;
      current = (current as Record<string, unknown>)[key];
    }
    return current as Schema | undefined;
  }

  private typeOf(schema: SchemaObject, depth: number): TypeName {
    const stated = Array.isArray(schema.type)
      ? (schema.type as TypeName[])
      : typeof schema.type === "string"
        ? [schema.type as TypeName]
        : [];
    if (stated.length > 0) {
      const concrete = stated.filter((t) => t !== "null");
      if (concrete.length === 0 || this.rng.bool(0.05)) return stated.includes("null") ? "null" : this.rng.pick(stated);
      return this.rng.pick(concrete);
    }
    if (schema.properties || schema.required || schema.additionalProperties !== undefined) return "object";
    if (schema.items || schema.prefixItems) return "array";
    if (schema.minLength !== undefined || schema.pattern || schema.format) return "string";
    if (schema.minimum !== undefined || schema.maximum !== undefined) return "number";
    return depth >= SHALLOW ? "string" : this.rng.pick(["string", "integer", "boolean", "object", "array"]);
  }

  private integer(schema: SchemaObject): number {
    let min = typeof schema.minimum === "number" ? Math.ceil(schema.minimum) : undefined;
    let max = typeof schema.maximum === "number" ? Math.floor(schema.maximum) : undefined;
    if (typeof schema.exclusiveMinimum === "number") min = Math.floor(schema.exclusiveMinimum) + 1;
    if (typeof schema.exclusiveMaximum === "number") max = Math.ceil(schema.exclusiveMaximum) - 1;
    min ??= max !== undefined ? max - 100 : this.rng.bool(0.8) ? 0 : -1000;
    max ??= min + (this.rng.bool(0.8) ? 100 : 100_000);
    let value = this.rng.int(min, Math.max(min, max));
    if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) {
      value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
    }
    return value;
  }

  private number(schema: SchemaObject): number {
    if (this.rng.bool(0.5)) return this.integer(schema);
    const min =
      typeof schema.minimum === "number"
        ? schema.minimum
        : typeof schema.exclusiveMinimum === "number"
          ? schema.exclusiveMinimum
          : 0;
    const max =
      typeof schema.maximum === "number"
        ? schema.maximum
        : typeof schema.exclusiveMaximum === "number"
          ? schema.exclusiveMaximum
          : min + 100;
    const value = min + this.rng.next() * (max - min);
    return Math.round(value * 1000) / 1000;
  }

  private string(schema: SchemaObject): string {
    const min = typeof schema.minLength === "number" ? schema.minLength : 0;
    const max = typeof schema.maxLength === "number" ? schema.maxLength : Math.max(min, 16);
    const fits = (text: string) => [...text].length >= min && [...text].length <= max;
    if (typeof schema.pattern === "string") {
      const matched = stringMatching({ pattern: schema.pattern, rng: this.rng, accept: fits });
      if (matched !== undefined) return matched;
    }
    if (schema.contentEncoding === "base64" || schema.format === "byte") return this.base64();
    if (typeof schema.format === "string") {
      const formatted = this.formatted(schema.format);
      if (formatted !== undefined && fits(formatted)) return formatted;
    }
    const length = this.rng.int(Math.max(min, Math.min(1, max)), Math.min(max, Math.max(min, 12)));
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_";
    let text = "";
    for (let i = 0; i < length; i++) text += alphabet[this.rng.int(0, alphabet.length - 1)];
    return text;
  }

  private base64(): string {
    const bytes = Buffer.alloc(this.rng.int(0, 24));
    for (let i = 0; i < bytes.length; i++) bytes[i] = this.rng.int(0, 255);
    return bytes.toString("base64");
  }

  private formatted(format: string): string | undefined {
    const r = this.rng;
    const two = (n: number) => String(n).padStart(2, "0");
    const date = `20${two(r.int(0, 30))}-${two(r.int(1, 12))}-${two(r.int(1, 28))}`;
    const time = `${two(r.int(0, 23))}:${two(r.int(0, 59))}:${two(r.int(0, 59))}Z`;
    const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[r.int(0, 15)]).join("");
    switch (format) {
      case "date-time":
        return `${date}T${time}`;
      case "date":
        return date;
      case "time":
        return time;
      case "email":
      case "idn-email":
        return `user${r.int(1, 999)}@example.com`;
      case "uri":
      case "url":
      case "iri":
        return `https://example.com/items/${r.int(1, 999)}`;
      case "uri-reference":
      case "iri-reference":
        return `/items/${r.int(1, 999)}`;
      case "uri-template":
        return "/items/{id}";
      case "uuid":
        return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
      case "ipv4":
        return `${r.int(1, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`;
      case "ipv6":
        return `2001:db8::${hex(4)}`;
      case "hostname":
      case "idn-hostname":
        return `host${r.int(1, 99)}.example.com`;
      case "duration":
        return `P${r.int(1, 9)}D`;
      case "json-pointer":
        return "/a/b";
      case "relative-json-pointer":
        return "0/a";
      case "regex":
        return "^a+$";
      case "int32":
      case "int64":
        return String(r.int(0, 100_000));
      default:
        return undefined;
    }
  }

  private array(schema: SchemaObject, depth: number): unknown[] {
    const min = typeof schema.minItems === "number" ? schema.minItems : 0;
    const statedMax = typeof schema.maxItems === "number" ? schema.maxItems : min + 3;
    const max = depth >= SHALLOW ? min : Math.min(statedMax, min + 3);
    const count = this.rng.int(min, Math.max(min, max));
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
    const items = schema.items as Schema | undefined;
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      if (depth >= GIVE_UP) break;
      const itemSchema = i < prefix.length ? prefix[i] : items;
      let item = this.value(itemSchema ?? true, depth + 1);
      if (schema.uniqueItems === true) {
        for (let retry = 0; retry < 5 && seen.has(safeKey(item)); retry++)
          item = this.value(itemSchema ?? true, depth + 1);
        if (seen.has(safeKey(item))) continue;
        seen.add(safeKey(item));
      }
      out.push(item);
    }
    return out;
  }

  private object(schema: SchemaObject, depth: number): Record<string, unknown> {
    const properties = isPlainObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const out: Record<string, unknown> = {};
    if (depth >= GIVE_UP) return out;
    for (const key of required) {
      setOwn(out, key, this.value(Object.hasOwn(properties, key) ? properties[key]! : true, depth + 1));
    }
    const optional = depth >= SHALLOW ? 0 : depth === 0 ? 0.6 : 0.35;
    for (const [key, property] of Object.entries(properties)) {
      if (required.has(key) || !this.rng.bool(optional)) continue;
      setOwn(out, key, this.value(property, depth + 1));
    }
    const extra = schema.additionalProperties;
    if (
      Object.keys(properties).length === 0 &&
      extra !== undefined &&
      extra !== false &&
      depth < SHALLOW &&
      this.rng.bool(0.4)
    ) {
      setOwn(out, `key${this.rng.int(1, 9)}`, this.value(extra === true ? true : (extra as Schema), depth + 1));
    }
    return out;
  }

  private anyValue(depth: number): unknown {
    const kind = depth >= SHALLOW ? "string" : this.rng.pick(["string", "integer", "boolean", "object", "array"]);
    return this.value({ type: kind }, depth);
  }
}

/** Merges two flattened schemas for `allOf`: properties and required joined, a property in both kept as `allOf`. */
function merge(a: SchemaObject, b: SchemaObject): SchemaObject {
  const out: SchemaObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) {
      out[key] = value;
      continue;
    }
    if (key === "properties" && isPlainObject(value) && isPlainObject(out.properties)) {
      const joined: Record<string, unknown> = { ...out.properties };
      for (const [name, schema] of Object.entries(value)) {
        joined[name] = Object.hasOwn(joined, name) ? { allOf: [joined[name], schema] } : schema;
      }
      out.properties = joined;
    } else if (key === "required" && Array.isArray(value) && Array.isArray(out.required)) {
      out.required = [...new Set([...(out.required as string[]), ...(value as string[])])];
    } else if (key === "type" && out.type !== value) {
      const left = Array.isArray(out.type) ? out.type : [out.type];
      const right = Array.isArray(value) ? value : [value];
      const both = left.filter((t) => right.includes(t) || (t === "integer" && right.includes("number")));
      out.type = both.length > 0 ? both : value;
    } else if (key === "additionalProperties" && value === false) {
      out[key] = false;
    }
  }
  return out;
}

function safeKey(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return String(value);
  }
}
