// Custom action definitions: the bundled example, and where each argument goes: {braces} to the path, the query
// for GET/HEAD/DELETE/OPTIONS, a JSON body otherwise, unless `in:` says where.

import { beforeAll, describe, expect, it } from "vitest";
import { FILE_SCHEMA } from "../../src/catalog/inputs.js";
import type { Catalog, ParameterLocation } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import {
  example,
  fixture,
  loadFixture,
  names,
  rejection,
  schemaProblems,
  toolNamed,
  validatorFor,
} from "../support/fixtures.js";

describe("examples/widgets.actions.yaml", () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadCatalog(example("widgets.actions.yaml"));
  });

  it("has one tool per action, named as written, with no diagnostics", () => {
    expect(names(catalog)).toEqual(["get_widget", "search_widgets", "create_widget", "delete_widget"]);
    expect(catalog.diagnostics).toEqual([]);
    expect(schemaProblems(catalog)).toEqual([]);
    expect(catalog.sources).toEqual([
      expect.objectContaining({
        kind: "actions",
        format: "action definition",
        title: "Widget service",
        version: "1.0.0",
        rateLimit: { requests: 10, windowSeconds: 1 },
      }),
    ]);
  });

  it("reads the API key from the variable the definition names", () => {
    expect(catalog.credentials).toEqual({
      widgets: {
        name: "widgets",
        type: "apiKey",
        in: "header",
        parameter: "X-API-Key",
        value: { env: "WIDGETS_API_KEY" },
      },
    });
    for (const tool of catalog.tools)
      expect(tool.operation.security).toEqual([{ schemes: [{ id: "widgets", scopes: [] }] }]);
  });

  it("routes each action to the base URL with its method, static headers and placement", () => {
    const get = toolNamed(catalog, "get_widget");
    expect(get.operation).toMatchObject({
      method: "GET",
      serverUrl: "https://api.widgets.example.com/v1",
      path: "/widgets/{widgetId}",
      headers: { Accept: "application/json" },
    });
    expect(get.operation.parameters.path).toEqual([
      expect.objectContaining({ name: "widgetId", argument: "widgetId", required: true, style: "simple" }),
    ]);
    const create = toolNamed(catalog, "create_widget");
    expect(create.operation.body).toEqual({
      mediaType: "application/json",
      kind: "json",
      required: true,
      fields: ["name", "color"],
    });
    // `in: { requestId: { in: header, name: X-Request-Id } }`: the argument keeps its name, the wire gets another.
    expect(create.operation.parameters.header).toEqual([
      expect.objectContaining({ name: "X-Request-Id", argument: "requestId", required: false }),
    ]);
  });

  it("uses shared schemas by $ref and wraps an array output as {result}", () => {
    expect(toolNamed(catalog, "get_widget").outputSchema).toMatchObject({
      type: "object",
      properties: { color: { enum: ["red", "green", "blue"] } },
    });
    const search = toolNamed(catalog, "search_widgets");
    expect(search.outputWrapped).toBe(true);
    expect(search.outputSchema).toMatchObject({
      type: "object",
      required: ["result"],
      properties: { result: { type: "array" } },
    });
    const valid = validatorFor(catalog, "search_widgets", "output");
    expect(valid({ result: [{ id: "w1", color: "red" }] })).toBe(true);
    expect(valid({ result: [{ id: "w1", color: "mauve" }] })).toBe(false);
  });

  it("asks for approval where the action says so, and classes DELETE as destructive", () => {
    const del = toolNamed(catalog, "delete_widget");
    expect(del.approval).toBe(true);
    expect(del.effect).toBe("destructive");
    expect(del.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(toolNamed(catalog, "get_widget").approval).toBeUndefined();
  });

  it("refuses arguments nobody declared", () => {
    const valid = validatorFor(catalog, "get_widget", "input");
    expect(valid({ widgetId: "w1" })).toBe(true);
    expect(valid({ widgetId: "w1", widgetID: "w1" })).toBe(false);
    expect(valid({})).toBe(false);
  });
});

describe("argument placement", () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadFixture("actions/placement.actions.yaml");
  });

  const where = (tool: string): Record<string, string[]> => {
    const { parameters, body } = toolNamed(catalog, tool).operation;
    const placed: Record<string, string[]> = {};
    for (const location of ["path", "query", "header", "cookie"] as ParameterLocation[]) {
      if (parameters[location].length > 0) placed[location] = parameters[location].map((p) => p.argument);
    }
    if (body?.fields) placed.body = body.fields;
    return placed;
  };

  it.each([
    { tool: "list_notes", method: "GET", want: { path: ["folderId"], query: ["q", "page"] } },
    {
      tool: "create_note",
      method: "POST",
      want: {
        path: ["folderId"],
        query: ["dryRun"],
        header: ["requestId"],
        cookie: ["session"],
        body: ["title", "text"],
      },
    },
    { tool: "replace_note", method: "PUT", want: { path: ["noteId"], body: ["title"] } },
    { tool: "patch_note", method: "PATCH", want: { path: ["noteId"], query: ["version"], body: ["title"] } },
    { tool: "delete_note", method: "DELETE", want: { path: ["noteId"], query: ["force"] } },
    { tool: "search_notes", method: "GET", want: { query: ["limit"], body: ["filter"] } },
    { tool: "head_note", method: "HEAD", want: { path: ["noteId"] } },
    { tool: "note_options", method: "OPTIONS", want: { path: ["noteId"] } },
  ])("$tool ($method) places its arguments as $want", ({ tool, method, want }) => {
    expect(toolNamed(catalog, tool).operation.method).toBe(method);
    expect(where(tool)).toEqual(want);
  });

  it("accepts lower-case methods and trims the base URL's trailing slash", () => {
    expect(toolNamed(catalog, "list_notes").operation).toMatchObject({
      method: "GET",
      serverUrl: "https://notes.example.com/api",
    });
  });

  it("makes a path placeholder required even when inputSchema does not list it", () => {
    expect(toolNamed(catalog, "list_notes").inputSchema.required).toEqual(["folderId"]);
    expect(toolNamed(catalog, "create_note").inputSchema.required).toEqual(
      expect.arrayContaining(["title", "folderId"]),
    );
  });

  it("marks the JSON body required when one of its fields is", () => {
    expect(toolNamed(catalog, "create_note").operation.body).toMatchObject({
      mediaType: "application/json",
      kind: "json",
      required: true,
    });
    expect(toolNamed(catalog, "patch_note").operation.body).toMatchObject({ required: false });
  });

  it("sends binary fields of a multipart action as files", () => {
    const tool = toolNamed(catalog, "upload_attachment");
    expect(tool.operation.body).toEqual({
      mediaType: "multipart/form-data",
      kind: "multipart",
      required: true,
      fields: ["file", "caption"],
      encoding: { file: { file: true } },
    });
    expect(tool.inputSchema.properties).toMatchObject({
      file: { type: "object", properties: FILE_SCHEMA.properties, required: ["filename", "data"] },
    });
  });

  it("keeps the description of a file field, which the model reads", () => {
    expect(toolNamed(catalog, "upload_attachment").inputSchema.properties).toMatchObject({
      file: { description: "The file." },
    });
  });

  it("wraps a non-object output and has no output schema when none is given", () => {
    expect(toolNamed(catalog, "list_notes").outputWrapped).toBe(true);
    expect(toolNamed(catalog, "replace_note").outputSchema).toBeUndefined();
    expect(toolNamed(catalog, "replace_note").operation.accept).toEqual([]);
  });

  it("compiles every listed schema, and keeps tags for filters", () => {
    expect(schemaProblems(catalog)).toEqual([]);
    expect(toolNamed(catalog, "list_notes").origin).toEqual({
      file: expect.stringContaining("placement.actions.yaml"),
      pointer: "/actions/0",
      operationId: "list_notes",
      tags: ["read"],
    });
  });

  it("refuses a path placeholder that inputSchema does not declare, naming the action's path with its line", async () => {
    const error = await rejection(loadFixture("actions/undeclared-path.actions.yaml"));
    expect(error.message).toContain(
      `${fixture("actions/undeclared-path.actions.yaml")}:7:11 #/actions/0/path: path placeholder {itemId} has no property in inputSchema`,
    );
  });
});
