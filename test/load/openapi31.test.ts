// OpenAPI 3.1: schemas are JSON Schema 2020-12 (type arrays, const, prefixItems, examples, $ref with siblings),
// path items may be $refs to components/pathItems, and webhooks are not tools.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { errors, loadFixture, names, schemaProblems, toolNamed, validatorFor } from "../support/fixtures.js";

let catalog: Catalog;

beforeAll(async () => {
  catalog = await loadFixture("openapi31/library.openapi.yaml");
});

type Schema = Record<string, unknown>;
const book = (): Schema => catalog.definitions.Book as Schema;
const bookProperty = (name: string): Schema => (book().properties as Schema)[name] as Schema;

describe("OpenAPI 3.1 document", () => {
  it("has a tool per operation, including those of a $ref'd path item, and none for webhooks", () => {
    expect(names(catalog)).toEqual(["listBooks", "addBook", "getBook", "removeBook"]);
    expect(names(catalog)).not.toContain("bookReturnedHook");
    expect(errors(catalog)).toEqual([]);
    expect(catalog.sources[0]).toMatchObject({ format: "OpenAPI 3.1.0", title: "Library" });
  });

  it("takes a path item's parameters and operations from components/pathItems, under the real path", () => {
    const tool = toolNamed(catalog, "getBook");
    expect(tool.operation.path).toBe("/books/{isbn}");
    expect(tool.origin.pointer).toBe("/components/pathItems/BookItem/get");
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: { isbn: { type: "string", pattern: "^[0-9-]{10,17}$" } },
      required: ["isbn"],
      additionalProperties: false,
    });
    expect(toolNamed(catalog, "removeBook").effect).toBe("destructive");
  });

  it("compiles every listed schema with Ajv2020", () => {
    expect(schemaProblems(catalog)).toEqual([]);
  });
});

describe("OpenAPI 3.1 schemas", () => {
  it("keeps type arrays with null", () => {
    expect(toolNamed(catalog, "listBooks").inputSchema.properties).toMatchObject({
      since: { type: ["string", "null"], format: "date" },
    });
    expect(bookProperty("subtitle")).toEqual({ type: ["string", "null"], description: "Subtitle, if any." });
    expect((catalog.definitions.Author as Schema).properties).toMatchObject({ born: { type: ["integer", "null"] } });
  });

  it("keeps const", () => {
    expect(bookProperty("kind")).toEqual({ const: "book" });
  });

  it("keeps a description beside a $ref", () => {
    expect(bookProperty("author")).toEqual({ $ref: "#/$defs/Author", description: "Who wrote it." });
  });

  it("keeps prefixItems and items: false", () => {
    expect(bookProperty("location")).toEqual({
      type: "array",
      description: "Room and shelf number.",
      prefixItems: [{ type: "string" }, { type: "integer", minimum: 1 }],
      items: false,
      minItems: 2,
    });
  });

  it("keeps examples arrays and numeric exclusiveMinimum", () => {
    expect(bookProperty("title")).toEqual({ type: "string", examples: ["Dune", "Emma"] });
    expect(toolNamed(catalog, "listBooks").inputSchema.properties).toMatchObject({
      shelf: { type: "integer", exclusiveMinimum: 0, examples: [3, 7] },
    });
  });

  it("validates what the schemas say", () => {
    const valid = validatorFor(catalog, "addBook", "input");
    const good = { isbn: "0-441-17271-7", title: "Dune", kind: "book", subtitle: null, location: ["A", 3] };
    expect(valid({ body: good })).toBe(true);
    expect(valid({ body: { ...good, kind: "magazine" } })).toBe(false);
    expect(valid({ body: { ...good, location: ["A", 3, "extra"] } })).toBe(false);
    expect(valid({ body: { ...good, location: [3, "A"] } })).toBe(false);
    const list = validatorFor(catalog, "listBooks", "input");
    expect(list({ since: null, shelf: 1 })).toBe(true);
    expect(list({ shelf: 0 })).toBe(false);
  });

  it("has no security when the document states none", () => {
    for (const tool of catalog.tools) expect(tool.operation.security).toEqual([]);
    expect(catalog.credentials).toEqual({});
  });
});
