// Library users may hand loadCatalog a document object (typed with openapi-types) instead of a path. It must
// become the same tools as the file would, and bad objects must be refused by name like bad files.

import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { OpenAPIV2, OpenAPIV3 } from "openapi-types";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { ActionDefinition } from "../../src/catalog/action-definition.js";
import { loadCatalog } from "../../src/load/index.js";
import { example, fixture, loadFixture, names, rejection, toolNamed } from "../support/fixtures.js";

function yamlFile<T>(path: string): T {
  return parse(readFileSync(path, "utf8")) as T;
}

describe("loadCatalog with a document in memory", () => {
  it("an OpenAPI 3 object gives the tools its file gives", async () => {
    const path = example("petstore.openapi.yaml");
    const document = yamlFile<OpenAPIV3.Document>(path);
    const fromFile = await loadCatalog(path);
    const fromMemory = await loadCatalog({ document, name: "petstore" });
    expect(names(fromMemory)).toEqual(names(fromFile));
    // Everything but the file the tool is said to come from.
    const shape = (tools: typeof fromFile.tools) =>
      tools.map((tool) => ({ ...tool, origin: { ...tool.origin, file: "" } }));
    expect(shape(fromMemory.tools)).toEqual(shape(fromFile.tools));
    expect(fromMemory.tools[0]?.origin.file).toBe("petstore");
  });

  it("a Swagger 2.0 object built in code is read", async () => {
    const document: OpenAPIV2.Document = {
      swagger: "2.0",
      info: { title: "Built in code", version: "1.0.0" },
      host: "api.example.com",
      schemes: ["https"],
      paths: {
        "/things/{id}": {
          get: {
            operationId: "getThing",
            parameters: [{ name: "id", in: "path", required: true, type: "integer" }],
            responses: { 200: { description: "ok" } },
          },
        },
      },
    };
    const catalog = await loadCatalog({ document });
    expect(toolNamed(catalog, "getThing").inputSchema).toMatchObject({
      properties: { id: { type: "integer" } },
      required: ["id"],
    });
    expect(catalog.sources[0]?.title).toBe("Built in code");
  });

  it("an action definition object is read, and several in-memory sources get namespaces from their names", async () => {
    const actions = yamlFile<ActionDefinition>(example("widgets.actions.yaml"));
    const pets = yamlFile<OpenAPIV3.Document>(example("petstore.openapi.yaml"));
    const catalog = await loadCatalog([
      { document: actions, name: "widgets" },
      { document: pets, name: "pets" },
    ]);
    const prefixes = new Set(names(catalog).map((name) => name.split("__")[0]));
    expect(prefixes).toEqual(new Set(["widgets", "pets"]));
  });

  it("relative external $refs are read from baseDir, and refused outside it", async () => {
    const path = fixture("refs/local/spec.yaml");
    const document = yamlFile<OpenAPIV3.Document>(path);
    const fromFile = await loadFixture("refs/local/spec.yaml");
    const fromMemory = await loadCatalog({ document, name: "spec", baseDir: dirname(path) });
    expect(toolNamed(fromMemory, "getPet").outputSchema).toEqual(toolNamed(fromFile, "getPet").outputSchema);
    const elsewhere = await rejection(loadCatalog({ document, name: "spec", baseDir: fixture("openapi30") }));
    expect(elsewhere.code).toBe("E_REF_NOT_ALLOWED");
    expect(elsewhere.message).toMatch(
      /^spec: external references that are not allowed:\n.*openapi30\/schemas\/pet.yaml, which does not exist/,
    );
  });

  it("an object that is not JSON is refused by name, not with a crash", async () => {
    const document = { openapi: "3.1.0", info: { title: "Loop", version: "1" }, paths: {} } as OpenAPIV3.Document & {
      self?: unknown;
    };
    document.self = document;
    const error = await rejection(loadCatalog({ document, name: "looped" }));
    expect(error.code).toBe("E_SOURCE");
    expect(error.message).toMatch(/^looped: cannot be read as JSON: .*circular/i);
  });

  it("an object of no known kind is refused like a file of no known kind", async () => {
    const error = await rejection(loadCatalog({ document: { title: "no kind" } as never, name: "odd" }));
    expect(error.code).toBe("E_SOURCE_KIND");
    expect(error.message).toMatch(/^odd: not an OpenAPI document/);
  });
});
