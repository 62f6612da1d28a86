// Tools' schemas refer to the catalog's shared definitions. This turns one into a self-contained schema (with the
// `$defs` it reaches) and measures what that would weigh in bytes without building it, so a 20,000-tool catalog
// can be sized without materializing gigabytes.

import type { JsonSchema } from "../types.js";

const DEFS_PREFIX = "#/$defs/";
// Keywords whose values are data, not schemas: an object in an example is not a reference.
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "dependentRequired"]);
const MAP_KEYWORDS = new Set(["properties", "patternProperties", "dependentSchemas", "$defs"]);

export class DefinitionIndex {
  private readonly directRefs = new Map<string, string[]>();
  private readonly sizes = new Map<string, number>();
  private readonly viewed = new Map<string, JsonSchema | undefined>();

  /** `view` shapes each definition as it is shown (e.g. compacted for a listing); it must keep every `$ref`. */
  constructor(
    private readonly definitions: Record<string, JsonSchema>,
    private readonly view?: (definition: JsonSchema, key: string) => JsonSchema,
  ) {}

  /** Keys of the definitions `schema` reaches, in first-reached order. */
  closure(...schemas: Array<JsonSchema | undefined>): string[] {
    const seen = new Set<string>();
    const order: string[] = [];
    const stack: string[] = [];
    for (const schema of schemas) if (schema !== undefined) stack.push(...refsIn(schema).reverse());
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (seen.has(key)) continue;
      seen.add(key);
      order.push(key);
      const refs = this.refsOf(key);
      for (let i = refs.length - 1; i >= 0; i--) if (!seen.has(refs[i]!)) stack.push(refs[i]!);
    }
    return order;
  }

  /** `schema` with the definitions it reaches under `$defs`. */
  selfContained<T extends JsonSchema>(schema: T): T {
    const keys = this.closure(schema);
    if (keys.length === 0 || typeof schema === "boolean") return schema;
    return {
      ...(schema as object),
      $defs: Object.fromEntries(keys.map((key) => [key, this.definition(key)])),
    } as unknown as T;
  }

  /** Bytes of `JSON.stringify(selfContained(schema))` in UTF-8, from cached sizes of the definitions. */
  bytes(schema: JsonSchema): number {
    return utf8Bytes(JSON.stringify(schema)) + this.defsBytes(schema);
  }

  /** The bytes `selfContained` adds to `schema`: its `$defs` member. */
  defsBytes(schema: JsonSchema): number {
    const keys = this.closure(schema);
    if (keys.length === 0) return 0;
    // `,"$defs":{` and `}` around `"key":<definition>` entries separated by commas.
    let total = 11 + (keys.length - 1);
    for (const key of keys) total += utf8Bytes(JSON.stringify(key)) + 1 + this.definitionBytes(key);
    return total;
  }

  private definitionBytes(key: string): number {
    let size = this.sizes.get(key);
    if (size === undefined) {
      size = utf8Bytes(JSON.stringify(this.definition(key) ?? {}));
      this.sizes.set(key, size);
    }
    return size;
  }

  /** The definition as shown, computed once. */
  private definition(key: string): JsonSchema | undefined {
    if (!this.view) return this.definitions[key];
    if (this.viewed.has(key)) return this.viewed.get(key);
    const stored = Object.hasOwn(this.definitions, key) ? this.definitions[key] : undefined;
    const shown = stored === undefined ? undefined : this.view(stored, key);
    this.viewed.set(key, shown);
    return shown;
  }

  private refsOf(key: string): string[] {
    let refs = this.directRefs.get(key);
    if (refs === undefined) {
      const definition = this.definition(key);
      refs = definition === undefined ? [] : refsIn(definition);
      this.directRefs.set(key, refs);
    }
    return refs;
  }
}

/** Definition keys a converted schema refers to directly, in document order, without duplicates. */
export function refsIn(schema: JsonSchema): string[] {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref") {
        if (typeof child === "string" && child.startsWith(DEFS_PREFIX)) found.add(child.slice(DEFS_PREFIX.length));
      } else if (MAP_KEYWORDS.has(key)) {
        // Names in these maps are property names ("default", "enum"…), their values schemas.
        if (child !== null && typeof child === "object") for (const item of Object.values(child)) walk(item);
      } else if (!DATA_KEYWORDS.has(key)) {
        walk(child);
      }
    }
  };
  walk(schema);
  return [...found];
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
