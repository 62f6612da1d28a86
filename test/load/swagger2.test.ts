// Swagger 2.0: server from host/basePath/schemes, `body` and `formData` parameters as `body`, collectionFormat as
// style/explode, x-nullable, securityDefinitions, and $refs to #/parameters, #/responses and #/definitions.

import { beforeAll, describe, expect, it } from "vitest";
import { FILE_SCHEMA } from "../../src/catalog/inputs.js";
import type { Catalog } from "../../src/catalog/types.js";
import { errors, listed, loadFixture, names, schemaProblems, toolNamed, validatorFor } from "../support/fixtures.js";

const SPEC = "openapi2/pets.swagger.yaml";
let catalog: Catalog;

beforeAll(async () => {
  catalog = await loadFixture(SPEC);
});

describe("Swagger 2.0 document", () => {
  it("has one tool per operation, named by operationId, with no errors", () => {
    expect(names(catalog)).toEqual([
      "listPets",
      "addPet",
      "getPetById",
      "deletePet",
      "uploadPhoto",
      "setAvatar",
      "renamePet",
    ]);
    expect(errors(catalog)).toEqual([]);
    expect(catalog.sources).toEqual([
      expect.objectContaining({ kind: "openapi", format: "Swagger 2.0", title: "Swagger Pets", version: "2.1" }),
    ]);
  });

  it("builds the server URL from host and basePath, preferring https among the schemes", () => {
    for (const tool of catalog.tools) expect(tool.operation.serverUrl).toBe("https://api.pets.example.com/v2");
  });

  it("compiles every listed schema with Ajv2020", () => {
    expect(schemaProblems(catalog)).toEqual([]);
  });
});

describe("Swagger 2.0 query parameters", () => {
  it.each([
    // given collectionFormat → want style, explode
    { name: "tags", style: "form", explode: false }, // csv
    { name: "ids", style: "spaceDelimited", explode: false }, // ssv
    { name: "codes", style: "tabDelimited", explode: false }, // tsv
    { name: "colors", style: "pipeDelimited", explode: false }, // pipes
    { name: "status", style: "form", explode: true }, // multi
  ])("collectionFormat of $name becomes style $style, explode $explode", ({ name, style, explode }) => {
    const binding = toolNamed(catalog, "listPets").operation.parameters.query.find((p) => p.name === name);
    expect(binding).toEqual({
      name,
      argument: name,
      required: false,
      style,
      explode,
      allowReserved: false,
      shape: "array",
    });
  });

  it("follows a $ref to #/parameters and keeps its schema and description", () => {
    const tool = toolNamed(catalog, "listPets");
    expect(tool.inputSchema.properties).toMatchObject({
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20, description: "How many pets at most." },
    });
    expect(tool.operation.parameters.query[0]).toMatchObject({
      name: "limit",
      style: "form",
      explode: true,
      shape: "primitive",
    });
  });

  it("turns x-nullable into a null type", () => {
    expect(toolNamed(catalog, "listPets").inputSchema.properties).toMatchObject({
      nickname: { type: ["string", "null"] },
    });
    expect(catalog.definitions.Pet).toMatchObject({ properties: { tag: { type: ["string", "null"] } } });
  });

  it("does not make the query API key an argument, though the operation declares it", () => {
    const tool = toolNamed(catalog, "listPets");
    expect(Object.keys(tool.inputSchema.properties as object)).not.toContain("api_key");
    expect(tool.operation.parameters.query.map((p) => p.name)).not.toContain("api_key");
  });
});

describe("Swagger 2.0 request bodies", () => {
  it("turns the body parameter into the argument `body`, whatever its own name", () => {
    const tool = toolNamed(catalog, "addPet");
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: { body: { $ref: "#/$defs/NewPet", description: "The pet to add." } },
      required: ["body"],
      additionalProperties: false,
    });
    expect(tool.operation.body).toEqual({
      mediaType: "application/json",
      kind: "json",
      required: true,
      argument: "body",
    });
  });

  it("follows $refs between #/definitions, into shared $defs", () => {
    const entry = listed(catalog, "addPet");
    expect(entry.inputSchema.$defs).toMatchObject({
      NewPet: { type: "object", required: ["name"], properties: { category: { $ref: "#/$defs/Category" } } },
      Category: { type: "object", properties: { id: { type: "integer", format: "int64" }, name: { type: "string" } } },
    });
  });

  it("sends formData with a file as multipart/form-data, the file as {filename, contentType?, data}", () => {
    const tool = toolNamed(catalog, "uploadPhoto");
    expect(tool.operation.body).toEqual({
      mediaType: "multipart/form-data",
      kind: "multipart",
      required: true,
      argument: "body",
      encoding: { file: { file: true }, labels: { style: "form", explode: true } },
    });
    const body = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).body!;
    expect(body.required).toEqual(["file"]);
    expect(body.properties).toMatchObject({
      file: {
        type: "object",
        required: ["filename", "data"],
        properties: { data: { type: "string", contentEncoding: "base64" } },
      },
      caption: { type: "string" },
      labels: { type: "array", items: { type: "string" } },
    });
    const valid = validatorFor(catalog, "uploadPhoto", "input");
    expect(
      valid({ petId: 1, body: { file: { filename: "rex.png", contentType: "image/png", data: "iVBORw0KGgo=" } } }),
    ).toBe(true);
    expect(valid({ petId: 1, body: { file: "iVBORw0KGgo=" } })).toBe(false);
  });

  it("keeps the description of a file field, which the model reads", () => {
    const body = (toolNamed(catalog, "uploadPhoto").inputSchema.properties as Record<string, Record<string, unknown>>)
      .body!;
    expect((body.properties as Record<string, Record<string, unknown>>).file).toMatchObject({
      description: "The photo.",
    });
  });

  it("sends a file field as multipart even when consumes does not say multipart", () => {
    const tool = toolNamed(catalog, "setAvatar");
    expect(tool.operation.body).toMatchObject({
      mediaType: "multipart/form-data",
      kind: "multipart",
      encoding: { image: { file: true } },
    });
    const body = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).body!;
    expect((body.properties as Record<string, unknown>).image).toMatchObject({ properties: FILE_SCHEMA.properties });
  });

  it("sends formData without files as application/x-www-form-urlencoded", () => {
    const tool = toolNamed(catalog, "renamePet");
    expect(tool.operation.body).toEqual({
      mediaType: "application/x-www-form-urlencoded",
      kind: "form",
      required: true,
      argument: "body",
      encoding: { aliases: { style: "pipeDelimited", explode: false } },
    });
    expect(tool.inputSchema.properties).toMatchObject({
      petId: { type: "integer" },
      body: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string", minLength: 1 }, aliases: { type: "array" } },
      },
    });
    expect(tool.inputSchema.required).toEqual(["petId", "body"]);
  });
});

describe("Swagger 2.0 responses", () => {
  it("follows a response $ref to #/responses and wraps its array schema as {result}", () => {
    const tool = toolNamed(catalog, "listPets");
    expect(tool.outputWrapped).toBe(true);
    expect(tool.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "array", items: { $ref: "#/$defs/Pet" } } },
      required: ["result"],
    });
    const valid = validatorFor(catalog, "listPets", "output");
    expect(valid({ result: [{ id: 1, name: "Rex", tag: null }] })).toBe(true);
    expect(valid({ result: [{ name: "Rex" }] })).toBe(false);
  });

  it("uses the 200 schema as the output and ignores a $ref'd 404", () => {
    const tool = toolNamed(catalog, "getPetById");
    expect(tool.outputWrapped).toBeFalsy();
    expect(tool.outputSchema).toMatchObject({
      type: "object",
      required: ["id", "name"],
      properties: { name: { type: "string", examples: ["Rex"] } },
    });
  });

  it("gives a 204-only operation no output schema and accepts nothing in particular", () => {
    const tool = toolNamed(catalog, "deletePet");
    expect(tool.outputSchema).toBeUndefined();
    expect(tool.operation.accept).toEqual([]);
  });
});

describe("Swagger 2.0 security definitions", () => {
  it("names the environment variables after each scheme", () => {
    expect(catalog.credentials).toEqual({
      basicAuth: {
        name: "basicAuth",
        description: "Staff accounts.",
        type: "basic",
        username: { env: "BASIC_USERNAME_BASICAUTH" },
        password: { env: "BASIC_PASSWORD_BASICAUTH" },
      },
      "query-key": {
        name: "query-key",
        type: "apiKey",
        in: "query",
        parameter: "api_key",
        value: { env: "API_KEY_QUERY_KEY" },
      },
      petstore_oauth: {
        name: "petstore_oauth",
        type: "oauth2",
        tokenUrl: "https://auth.pets.example.com/oauth/token",
        scopes: ["pets:read", "pets:write"],
        clientId: { env: "OAUTH_CLIENT_ID_PETSTORE_OAUTH" },
        clientSecret: { env: "OAUTH_CLIENT_SECRET_PETSTORE_OAUTH" },
      },
    });
  });

  it.each([
    { tool: "listPets", security: [{ schemes: [{ id: "query-key", scopes: [] }] }] }, // inherited from the document
    { tool: "addPet", security: [{ schemes: [{ id: "petstore_oauth", scopes: ["pets:write"] }] }] },
    { tool: "deletePet", security: [{ schemes: [{ id: "basicAuth", scopes: [] }] }] },
  ])("$tool requires $security.0.schemes.0.id", ({ tool, security }) => {
    expect(toolNamed(catalog, tool).operation.security).toEqual(security);
  });
});

describe("Swagger 2.0 path-level parameters", () => {
  it("are overridden by an operation-level header of the same name in any case, keeping the operation's required", async () => {
    const tool = toolNamed(await loadFixture("openapi2/header-override.swagger.yaml"), "listThings");
    expect(tool.operation.parameters.header).toEqual([
      expect.objectContaining({ name: "x-trace", argument: "x-trace", required: true }),
    ]);
    expect(tool.inputSchema.properties).toEqual({
      "x-trace": { type: "string", description: "Operation-level trace id." },
    });
    expect(tool.inputSchema.required).toEqual(["x-trace"]);
  });
});
