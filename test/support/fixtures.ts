// Shared by the loader and CLI tests: where the fixtures are, loading one, finding a tool, and checking that every
// schema a client would see compiles the way the runtime compiles it (Ajv2020 with formats, strict: false).

import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { expect } from "vitest";
import type { ListedTool } from "../../src/catalog/listing.js";
import { Listing } from "../../src/catalog/listing.js";
import type { Catalog, Diagnostic, Tool } from "../../src/catalog/types.js";
import type { LoadOptions } from "../../src/load/sources.js";
import { loadCatalog } from "../../src/load/index.js";

// ajv-formats is CommonJS: its default export arrives as the module object or the plugin itself.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Absolute path of a fixture: `fixture("openapi30/zoo.openapi.json")`. */
export function fixture(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

/** Absolute path of a file in examples/. */
export function example(relative: string): string {
  return fileURLToPath(new URL(`../../examples/${relative}`, import.meta.url));
}

export function loadFixture(relative: string, options?: LoadOptions): Promise<Catalog> {
  return loadCatalog(fixture(relative), options);
}

export function toolNamed(catalog: Catalog, name: string): Tool {
  const tool = catalog.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool '${name}'; the catalog has: ${catalog.tools.map((t) => t.name).join(", ")}`);
  return tool;
}

export function names(catalog: Catalog): string[] {
  return catalog.tools.map((t) => t.name);
}

export function errors(catalog: Catalog): Diagnostic[] {
  return catalog.diagnostics.filter((d) => d.severity === "error");
}

/** The tools/list entry (schemas self-contained) of the tool with this name. */
export function listed(catalog: Catalog, name: string): ListedTool {
  return new Listing(catalog).entry(toolNamed(catalog, name));
}

export function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** Compiles every listed input and output schema; returns `tool: message` for each one that does not compile. */
export function schemaProblems(catalog: Catalog): string[] {
  const listing = new Listing(catalog);
  const ajv = newAjv();
  const problems: string[] = [];
  for (const tool of catalog.tools) {
    const entry = listing.entry(tool);
    for (const [which, schema] of [
      ["input", entry.inputSchema],
      ["output", entry.outputSchema],
    ] as const) {
      if (schema === undefined) continue;
      try {
        // JSON round trip: what a client receives, and proof the schema is finite (no inlined cycles).
        ajv.compile(JSON.parse(JSON.stringify(schema)));
      } catch (error) {
        problems.push(`${tool.name} ${which}: ${(error as Error).message}`);
      }
    }
  }
  return problems;
}

/** A validator for a tool's listed input or output schema. */
export function validatorFor(catalog: Catalog, name: string, which: "input" | "output"): (value: unknown) => boolean {
  const entry = listed(catalog, name);
  const schema = which === "input" ? entry.inputSchema : entry.outputSchema;
  expect(schema, `${name} has an ${which} schema`).toBeDefined();
  const validate = newAjv().compile(schema as object);
  return (value) => validate(value) as boolean;
}

/** The error a promise rejects with (failing the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected the promise to reject, but it resolved");
}

/** `text` as a literal inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `T`'s keys, each optional and settable to `undefined`: a test that removes a default (`{ exp: undefined }`). */
export type Unsettable<T> = { [K in keyof T]?: T[K] | undefined };
