// The token economy of tools/list, checked on a fixture full of redundancies and on GitHub's spec: nothing said
// twice, no empty keys, output schemas without annotations, every `$ref` resolving within its entry, every
// parameter an argument, and the listed schemas the catalog's own but for what was dropped (so they accept the
// same arguments and results).

import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { GITHUB_SPEC } from "../../bench/corpus-check.mjs";
import { Listing } from "../../src/catalog/listing.js";
import { DefinitionIndex } from "../../src/catalog/schema/closure.js";
import { ADVERTISED_FORMATS, describeFormat } from "../../src/catalog/schema/formats.js";
import {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
} from "../../src/catalog/schema/keywords.js";
import type { Catalog, JsonSchema } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { fixture } from "../support/fixtures.js";

const ANNOTATIONS = ["title", "description", "examples", "default", "deprecated"];
type Use = "input" | "output";
type Schema = Record<string, unknown>;

/** Calls `each` on every schema object inside `schema` (not into data such as enums or examples). */
function walk(
  schema: unknown,
  each: (schema: Schema, name: string | undefined, top: boolean) => void,
  name?: string,
  top = true,
): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  const s = schema as Schema;
  each(s, name, top);
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) walk(s[keyword], each, undefined, false);
  for (const keyword of SCHEMA_ARRAY_KEYWORDS)
    if (Array.isArray(s[keyword])) for (const item of s[keyword] as unknown[]) walk(item, each, undefined, false);
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = s[keyword];
    if (typeof map === "object" && map !== null)
      for (const [key, value] of Object.entries(map))
        walk(value, each, keyword === "properties" ? key : undefined, false);
  }
}

const words = (text: unknown): string =>
  String(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");

/** What the economy rules forbid in one listed schema. */
function redundancies(schema: unknown, use: Use, definitionName?: string): string[] {
  const found: string[] = [];
  // Only a tool's own input or output object is "top": a definition's empty properties can go.
  const isTool = definitionName === undefined;
  walk(schema, (s, name, root) => {
    const top = root && isTool;
    const at = name ?? definitionName ?? "(schema)";
    if (use === "output")
      for (const keyword of ANNOTATIONS) if (keyword in s) found.push(`${at}: output keeps '${keyword}'`);
    if (
      typeof s.title === "string" &&
      [name, root ? definitionName : undefined, s.description].some(
        (other) => other !== undefined && words(other) === words(s.title),
      )
    )
      found.push(`${at}: title '${s.title}' repeats`);
    for (const keyword of ["title", "description"])
      if (typeof s[keyword] === "string" && (s[keyword] as string).trim() === "") found.push(`${at}: blank ${keyword}`);
    if (
      Array.isArray(s.examples) &&
      (s.examples.length === 0 ||
        (s.examples.length === 1 && JSON.stringify(s.examples[0]) === JSON.stringify(s.default)))
    )
      found.push(`${at}: examples repeat the default`);
    if (s.deprecated === false) found.push(`${at}: deprecated: false`);
    if (Array.isArray(s.required) && s.required.length === 0) found.push(`${at}: empty required`);
    if (!top && typeof s.properties === "object" && s.properties !== null && Object.keys(s.properties).length === 0)
      found.push(`${at}: empty properties`);
  });
  return found;
}

/** A schema with the keywords a listing may drop taken out everywhere: what is left must be the same. */
function essential(schema: unknown, use: Use, { definition = false }: { definition?: boolean } = {}): unknown {
  const copy = structuredClone(schema);
  walk(copy, (s, _name, root) => {
    const top = root && !definition;
    // Output schemas also leave patterns to the server, which checks them in linear time.
    for (const keyword of use === "output" ? [...ANNOTATIONS, "pattern"] : ["title", "examples"]) delete s[keyword];
    if (s.deprecated === false) delete s.deprecated;
    if (typeof s.description === "string" && s.description.trim() === "") delete s.description;
    if (Array.isArray(s.required) && s.required.length === 0) delete s.required;
    if (!top && typeof s.properties === "object" && s.properties !== null && Object.keys(s.properties).length === 0)
      delete s.properties;
    // A format clients do not know moves into an input's description (and out of an output schema).
    if (typeof s.format === "string" && !ADVERTISED_FORMATS.has(s.format)) {
      if (use === "input") s.description = describeFormat({ description: s.description, format: s.format });
      delete s.format;
    }
  });
  return copy;
}

function economyProblems(catalog: Catalog): string[] {
  const listing = new Listing(catalog);
  const problems: string[] = [];
  for (const tool of catalog.tools) {
    const entry = listing.entry(tool);
    const say = (problem: string): number => problems.push(`${tool.name}: ${problem}`);
    if (entry.annotations.title === entry.title) say("annotations.title repeats the title");
    if (listing.bytes(tool) !== Buffer.byteLength(JSON.stringify(entry))) say("bytes() is not the entry's size");
    const properties = Object.keys((entry.inputSchema.properties ?? {}) as object);
    const { parameters, body } = tool.operation;
    for (const argument of [
      ...Object.values(parameters)
        .flat()
        .map((p) => p.argument),
      ...(body?.argument ? [body.argument] : []),
      ...(body?.fields ?? []),
    ]) {
      if (!properties.includes(argument)) say(`parameter '${argument}' is not in the input schema`);
    }
    for (const [use, listed, stored] of [
      ["input", entry.inputSchema, tool.inputSchema],
      ["output", entry.outputSchema, tool.outputSchema],
    ] as const) {
      if (!listed || !stored) continue;
      const { $defs = {}, ...own } = listed as Schema & { $defs?: Record<string, JsonSchema> };
      const reached = new DefinitionIndex($defs).closure(own as JsonSchema);
      for (const key of reached)
        if (!Object.hasOwn($defs, key)) say(`${use}: $ref to '${key}' does not resolve within the entry`);
      if (reached.length !== Object.keys($defs).length) say(`${use}: $defs holds definitions nothing refers to`);
      problems.push(...redundancies(own, use).map((p) => `${tool.name} ${use}: ${p}`));
      if (JSON.stringify(essential(own, use)) !== JSON.stringify(essential(stored, use)))
        say(`${use} schema differs from the catalog's in more than what may be dropped`);
      for (const [key, definition] of Object.entries($defs)) {
        problems.push(
          ...redundancies(definition, use, key.replace(/\.(input|output)$/, "")).map(
            (p) => `${tool.name} ${use} $defs/${key}: ${p}`,
          ),
        );
        if (
          JSON.stringify(essential(definition, use, { definition: true })) !==
          JSON.stringify(essential(catalog.definitions[key], use, { definition: true }))
        )
          say(`${use} $defs/${key} differs from the catalog's`);
      }
    }
  }
  return problems;
}

describe("token economy of tools/list", () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadCatalog(fixture("openapi30/economy.openapi.yaml"));
  });

  it("on a spec full of redundancies: none is left, and nothing else is dropped", () => {
    // The catalog (what validates) has them all, so the check has something to find…
    const stored = [...catalog.tools.map((t) => t.inputSchema), ...Object.values(catalog.definitions)].flatMap((s) =>
      redundancies(s, "input"),
    );
    for (const kind of [
      "title 'Name' repeats",
      "blank description",
      "examples repeat the default",
      "deprecated: false",
      "empty properties",
    ]) {
      expect(
        stored.some((problem) => problem.includes(kind)),
        kind,
      ).toBe(true);
    }
    expect(catalog.tools.flatMap((t) => redundancies(t.outputSchema, "output"))).not.toEqual([]);
    // …and the listing has none of them.
    expect(economyProblems(catalog)).toEqual([]);
  });

  it("keeps titles that say more, real examples, defaults, enums, formats, bounds and descriptions of inputs", () => {
    const listing = new Listing(catalog);
    const entry = (name: string) => listing.entry(catalog.tools.find((t) => t.name === name)!);
    const create = entry("createRepo").inputSchema as unknown as {
      properties: Record<string, Schema>;
      $defs: Record<string, Schema>;
    };
    expect(create.properties["X-Trace"]).toEqual({ type: "string", title: "A trace id the support team can look up" });
    expect(create.properties.dry_run).toEqual({ type: "boolean", default: false });
    expect(create.$defs.NewRepo!.properties).toMatchObject({
      name: { type: "string", description: "The repository's name.", examples: ["hello-world"] },
      visibility: { enum: ["public", "private"], default: "public", title: "Visibility of the repository on the site" },
    });
    expect(create.$defs.Owner).toEqual({
      description: "Who owns the repository.",
      type: "object",
      properties: { login: { type: "string" } },
    });
    expect(entry("listLabels").inputSchema.properties).toMatchObject({
      per_page: { type: "integer", default: 30, maximum: 100, examples: [50] },
    });
    expect(entry("getRepo").outputSchema!.properties).toMatchObject({
      id: { type: "integer", format: "int64" },
      created_at: { format: "date-time" },
    });
  });

  it("lists schemas that accept exactly the arguments and results the catalog's schemas accept", () => {
    const listing = new Listing(catalog);
    const stored = new DefinitionIndex(catalog.definitions);
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const create = catalog.tools.find((t) => t.name === "createRepo")!;
    const samples = [
      { org: "o", body: { name: "r" } },
      { org: "o", body: { name: "r", visibility: "secret" } },
      { org: "o", body: { name: "r", settings: { a: true } } },
      { org: "o", body: { name: "r", settings: { a: "yes" } } },
      { org: "o", body: { name: "r", owner: { login: 3 } } },
      { org: "o", dry_run: true, "X-Trace": "t", session: "s", body: { name: "r" } },
      { org: "o" },
      { org: "o", body: {}, extra: 1 },
    ];
    const listed = ajv.compile(listing.entry(create).inputSchema);
    const original = ajv.compile(stored.selfContained(create.inputSchema));
    expect(samples.map((s) => listed(s))).toEqual(samples.map((s) => original(s)));
    expect(samples.map((s) => listed(s))).toContain(false);

    const get = catalog.tools.find((t) => t.name === "getRepo")!;
    const results = [
      { id: 1, name: "r", owner: {} },
      { id: 1, name: "r", owner: {}, labels: [{ name: "bug", color: null }] },
      { id: 1, name: "r", owner: {}, labels: [{ color: "ff0000" }] },
      { id: "1", name: "r", owner: {} },
      { name: "r" },
    ];
    const listedOut = ajv.compile(listing.entry(get).outputSchema!);
    const originalOut = ajv.compile(stored.selfContained(get.outputSchema!));
    expect(results.map((r) => listedOut(r))).toEqual(results.map((r) => originalOut(r)));
  });

  it("on GitHub's spec: no redundancy, every $ref resolves in its entry, every parameter of every operation is an argument", async () => {
    const github = await loadCatalog(GITHUB_SPEC);
    expect(github.tools.length).toBeGreaterThan(1000);
    expect(economyProblems(github)).toEqual([]);

    // Against the document itself, not only the catalog's bindings: each declared parameter and request body.
    const spec = JSON.parse(readFileSync(GITHUB_SPEC, "utf8")) as {
      paths: Record<string, Record<string, Schema>>;
      components: { parameters: Record<string, Schema> };
    };
    const listing = new Listing(github);
    const missing: string[] = [];
    for (const tool of github.tools) {
      const [, , path, method] = tool.origin.pointer
        .split("/")
        .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
      const operation = spec.paths[path!]![method!]! as { parameters?: Schema[]; requestBody?: unknown };
      const properties = listing.entry(tool).inputSchema.properties as Record<string, unknown>;
      const declared = [
        ...((spec.paths[path!]!.parameters as Schema[] | undefined) ?? []),
        ...(operation.parameters ?? []),
      ].map((p) => (typeof p.$ref === "string" ? spec.components.parameters[p.$ref.split("/").at(-1)!]! : p));
      for (const parameter of declared)
        if (!Object.hasOwn(properties, parameter.name as string))
          missing.push(`${tool.name}: ${String(parameter.name)}`);
      if (operation.requestBody !== undefined && !Object.hasOwn(properties, "body")) missing.push(`${tool.name}: body`);
    }
    expect(missing).toEqual([]);
  });
});
