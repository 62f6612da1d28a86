// Response values for the local GitHub upstream (bench/github-upstream.mjs): each operation's template is the spec's
// own example when the project's validator (the engine's output validation, Ajv) accepts it, else a value generated
// from the tool's output schema. Everything is seeded: the same seed and the same request give the same bytes.

/** mulberry32 over a string's FNV-1a hash: one stream per (seed, key). */
export class Rng {
  constructor(seed, key = "") {
    let h = 0x811c9dc5 ^ seed;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    this.state = h >>> 0;
  }
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  bool(p = 0.5) {
    return this.next() < p;
  }
  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }
}

/** The JSON example of an operation's first 2xx response (its first named example), or undefined. */
export function exampleOf({ spec, method, path }) {
  const operation = spec.paths[path]?.[method.toLowerCase()];
  const success = Object.entries(operation?.responses ?? {}).find(([code]) => code.startsWith("2"))?.[1];
  const response = success?.$ref ? spec.components.responses[success.$ref.split("/").pop()] : success;
  const content = response?.content?.["application/json"];
  const first = content?.examples ? Object.values(content.examples)[0] : undefined;
  // A named example is a $ref to a shared one, or holds its value, which may itself be such a $ref.
  const ref = first?.$ref ?? first?.value?.$ref;
  if (typeof ref === "string") return structuredClone(spec.components.examples[ref.split("/").pop()]?.value);
  return structuredClone(first?.value ?? content?.example);
}

/**
 * The tool's template: its example if valid; else the example laid over a value generated from the output schema,
 * each field the validator refuses taken from the generated value (or dropped), until it passes; else generated.
 * A tool with no output schema gets its example as is; `undefined` when there is no JSON at all.
 */
export function templateOf({ spec, tool, validator, definitions, seed }) {
  const example = exampleOf({ spec, method: tool.operation.method, path: tool.operation.path });
  if (!tool.outputSchema) return example === undefined ? undefined : { value: example, from: "example" };
  const wrap = (value) => (tool.outputWrapped ? { result: value } : value);
  const mismatch = (value) => validator.output(tool, wrap(value))[0];
  if (example !== undefined && !mismatch(example)) return { value: example, from: "example" };
  const rng = new Rng(seed, tool.name);
  const schema = tool.outputWrapped ? tool.outputSchema.properties.result : tool.outputSchema;
  const generated = wrap(generate({ schema, definitions, rng, depth: 0 }));
  const value = wrap(example === undefined ? undefined : overlay(structuredClone(generated), example));
  for (let round = 0; round < 200; round++) {
    const found = validator.output(tool, value)[0];
    if (!found) return { value: tool.outputWrapped ? value.result : value, from: "example, repaired" };
    const path = found.pointer
      .split("/")
      .slice(1)
      .map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
    if (path.length === 0 || !repair({ value, generated, path })) break;
  }
  const plain = tool.outputWrapped ? generated.result : generated;
  return { value: plain, from: mismatch(plain) ? "schema (invalid)" : "schema" };
}

/** `over` laid onto `base`: objects merged key by key, arrays item by item onto the base's first item. */
function overlay(base, over) {
  if (Array.isArray(over))
    return over.map((item) => overlay(structuredClone(Array.isArray(base) ? base[0] : undefined), item));
  if (over && typeof over === "object" && base && typeof base === "object" && !Array.isArray(base)) {
    for (const [key, value] of Object.entries(over)) base[key] = overlay(base[key], value);
    return base;
  }
  return over;
}

/** The value at `path` replaced by the generated one (its first item for array indexes), or dropped. */
function repair({ value, generated, path }) {
  let target = value;
  let source = generated;
  for (const key of path.slice(0, -1)) {
    target = target?.[key];
    source = Array.isArray(source) ? source[0] : source?.[key];
  }
  const last = path.at(-1);
  if (target === null || typeof target !== "object") return false;
  const replacement = Array.isArray(source) ? source[0] : source?.[last];
  if (replacement === undefined) {
    if (!(last in target)) return false;
    delete target[last];
  } else {
    if (JSON.stringify(target[last]) === JSON.stringify(replacement)) return false;
    target[last] = structuredClone(replacement);
  }
  return true;
}

const MAX_DEPTH = 8;

/** A value for a 2020-12 schema with `#/$defs/` refs: every property, one or two array items, formats honoured. */
export function generate({ schema, definitions, rng, depth }) {
  if (schema === true || schema === undefined) return "value";
  if (schema === false || depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === "string") {
    return generate({ schema: resolve(schema, definitions), definitions, rng, depth: depth + 1 });
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? null;
  const branches = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(branches)) {
    const branch = branches.find((b) => !(b && b.type === "null")) ?? branches[0];
    const { oneOf: _o, anyOf: _a, ...rest } = schema;
    return generate({ schema: mergeSchemas(rest, resolve(branch, definitions)), definitions, rng, depth: depth + 1 });
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    const merged = allOf.map((part) => resolve(part, definitions)).reduce(mergeSchemas, rest);
    return generate({ schema: merged, definitions, rng, depth: depth + 1 });
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== "null") ?? (types.length ? "null" : schema.properties ? "object" : "string");
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return rng.bool();
    case "integer":
      return rng.int(schema.minimum ?? 1, schema.maximum ?? 100_000);
    case "number":
      return rng.int(schema.minimum ?? 0, schema.maximum ?? 1000);
    case "array": {
      const count = Math.max(schema.minItems ?? 0, depth > 3 ? 0 : 1);
      return Array.from({ length: count }, () =>
        generate({ schema: schema.items, definitions, rng, depth: depth + 1 }),
      );
    }
    case "object": {
      const value = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        value[name] = generate({ schema: property, definitions, rng, depth: depth + 1 });
      }
      return value;
    }
    default:
      return stringFor(schema, rng);
  }
}

function resolve(schema, definitions) {
  if (!schema || typeof schema.$ref !== "string") return schema ?? {};
  const { $ref, ...rest } = schema;
  return mergeSchemas(resolve(definitions[$ref.replace(/^#\/\$defs\//, "")], definitions), rest);
}

function mergeSchemas(a, b) {
  return {
    ...a,
    ...b,
    properties: { ...a.properties, ...b.properties },
    required: [...(a.required ?? []), ...(b.required ?? [])],
  };
}

function stringFor(schema, rng) {
  const n = rng.int(1, 999);
  switch (schema.format) {
    case "date-time":
      return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}T0${rng.int(0, 9)}:15:00Z`;
    case "date":
      return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}`;
    case "uri":
    case "url":
      return `https://api.github.com/items/${n}`;
    case "email":
      return `user${n}@example.com`;
    case "uuid":
      return `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
    default:
      return `${"text".repeat(Math.ceil((schema.minLength ?? 1) / 4))}-${n}`;
  }
}
