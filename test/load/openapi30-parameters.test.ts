// OpenAPI 3.0 parameters as tool arguments: path-level and operation-level parameters, style/explode for every
// location, name collisions, credential parameters and the headers that are ours to set, server variables.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog, ParameterBinding, ParameterLocation } from "../../src/catalog/types.js";
import { loadFixture, toolNamed, validatorFor } from "../support/fixtures.js";

const SPEC = "openapi30/zoo.openapi.json";
let catalog: Catalog;

beforeAll(async () => {
  catalog = await loadFixture(SPEC);
});

function binding(tool: string, location: ParameterLocation, argument: string): ParameterBinding | undefined {
  return toolNamed(catalog, tool).operation.parameters[location].find((p) => p.argument === argument);
}

describe("path-level and operation-level parameters", () => {
  it("inherits path-level parameters and lets the operation override one by name and location", () => {
    const tool = toolNamed(catalog, "getAnimal");
    expect(tool.inputSchema.properties).toEqual({
      animalId: { type: "integer", format: "int64", minimum: 1, description: "The animal's id." },
      lang: { type: "string", default: "en" },
      verbose: {
        type: "string",
        enum: ["low", "high"],
        description: "Operation-level detail level, overriding the path-level flag.",
      },
    });
    expect(tool.inputSchema.required).toEqual(["animalId"]);
    expect(tool.operation.parameters.query.map((p) => p.name)).toEqual(["lang", "verbose"]);
  });

  it("keeps the path-level definition where the operation does not override it", () => {
    expect(toolNamed(catalog, "deleteAnimal").inputSchema.properties).toMatchObject({
      verbose: { type: "boolean", description: "Path-level flag." },
    });
  });
});

describe("style and explode", () => {
  it.each([
    // given location + declared style/explode → want the resolved binding
    {
      location: "path",
      argument: "ids",
      want: { name: "ids", style: "label", explode: true, shape: "array", required: true },
    },
    {
      location: "path",
      argument: "coords",
      want: { name: "coords", style: "matrix", explode: false, shape: "object", required: true },
    },
    {
      location: "query",
      argument: "filter",
      want: { name: "filter", style: "deepObject", explode: true, shape: "object", required: false },
    },
    {
      location: "query",
      argument: "words",
      want: { name: "words", style: "spaceDelimited", explode: false, shape: "array", required: false },
    },
    {
      location: "query",
      argument: "tags",
      want: { name: "tags", style: "pipeDelimited", explode: false, shape: "array", required: false },
    },
    {
      location: "query",
      argument: "query_ids",
      want: { name: "ids", style: "form", explode: true, shape: "array", required: false },
    },
    {
      location: "header",
      argument: "X-Ids",
      want: { name: "X-Ids", style: "simple", explode: true, shape: "array", required: false },
    },
    {
      location: "header",
      argument: "header_ids",
      want: { name: "ids", style: "simple", explode: false, shape: "primitive", required: false },
    },
    {
      location: "cookie",
      argument: "prefs",
      want: { name: "prefs", style: "form", explode: false, shape: "object", required: false },
    },
  ] as const)(
    "$location argument $argument is sent as $want.style, explode $want.explode",
    ({ location, argument, want }) => {
      expect(binding("search", location, argument)).toEqual({ argument, allowReserved: false, ...want });
    },
  );

  it("defaults to simple for path parameters and form with explode for query parameters", () => {
    expect(binding("getAnimal", "path", "animalId")).toMatchObject({ style: "simple", explode: false });
    expect(binding("getAnimal", "query", "lang")).toMatchObject({ style: "form", explode: true });
  });
});

describe("argument names", () => {
  it("settles collisions deterministically: path first, then query, header, cookie, then the body", () => {
    const tool = toolNamed(catalog, "search");
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual([
      "ids",
      "coords",
      "filter",
      "words",
      "tags",
      "query_ids",
      "body",
      "X-Ids",
      "header_ids",
      "prefs",
      "request_body",
    ]);
    expect(tool.operation.body).toEqual({
      mediaType: "application/json",
      kind: "json",
      required: false,
      argument: "request_body",
    });
    expect(binding("search", "query", "body")).toMatchObject({ name: "body", argument: "body" });
    expect(tool.inputSchema.required).toEqual(["ids", "coords"]);
  });

  it("gives the same argument names on every load", async () => {
    const again = await loadFixture(SPEC);
    expect(toolNamed(again, "search").operation).toEqual(toolNamed(catalog, "search").operation);
    expect(toolNamed(again, "search").inputSchema).toEqual(toolNamed(catalog, "search").inputSchema);
  });

  it("validates arguments by those names and refuses unknown ones", () => {
    const valid = validatorFor(catalog, "search", "input");
    expect(
      valid({
        ids: [1, 2],
        coords: { lat: 1, lon: 2 },
        query_ids: [3],
        header_ids: "x",
        body: "q",
        request_body: { q: "lion" },
      }),
    ).toBe(true);
    expect(valid({ ids: [1], coords: {}, filter: { color: "red", size: 2 }, prefs: { theme: "dark" } })).toBe(true);
    expect(valid({ coords: {} })).toBe(false);
    expect(valid({ ids: [1], coords: {}, idz: [1] })).toBe(false);
  });
});

describe("parameters that are not arguments", () => {
  it("leaves out a header the API key scheme fills in, matching its name case-insensitively", () => {
    const tool = toolNamed(catalog, "listAnimals");
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(["species"]);
    expect(tool.operation.parameters.header).toEqual([]);
    expect(catalog.credentials.zoo_key).toEqual({
      name: "zoo_key",
      type: "apiKey",
      in: "header",
      parameter: "x-zoo-key",
      value: { env: "API_KEY_ZOO_KEY" },
    });
  });

  it.each(["Accept", "Content-Type", "Authorization"])("ignores a declared %s header parameter", (header) => {
    const tool = toolNamed(catalog, "listAnimals");
    expect(JSON.stringify(tool.inputSchema)).not.toContain(`"${header}"`);
    expect(tool.operation.parameters.header.map((p) => p.name.toLowerCase())).not.toContain(header.toLowerCase());
  });

  it("keeps a parameter's $ref'd schema and its own description", () => {
    expect(toolNamed(catalog, "listAnimals").inputSchema.properties).toEqual({
      species: { $ref: "#/$defs/Species", description: "Only this species." },
    });
  });
});

describe("servers", () => {
  it("fills server variables with their defaults", () => {
    for (const tool of catalog.tools) expect(tool.operation.serverUrl).toBe("https://eu.zoo.example.com/v3");
  });

  it("uses --base-url instead when given, without a trailing slash", async () => {
    const overridden = await loadFixture(SPEC, { baseUrl: "http://127.0.0.1:8080/zoo/" });
    expect(new Set(overridden.tools.map((t) => t.operation.serverUrl))).toEqual(new Set(["http://127.0.0.1:8080/zoo"]));
  });
});
