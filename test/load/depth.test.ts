// Documents nested deeper than openapi-mcp reads (MAX_DOCUMENT_DEPTH, 128 levels) are refused with the place,
// exit 1, before any walker that recurses can run out of call stack; documents at the limit go through every
// stage (conversion, listing, validation, TypeScript types) in every nesting shape; and shallow schemas chained
// by $refs deeper than the validator can compile make error results, not internal errors.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_DOCUMENT_DEPTH } from "../../src/catalog/depth.js";
import { Listing } from "../../src/catalog/listing.js";
import { renderTypes } from "../../src/generate/typescript.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import { Validator } from "../../src/runtime/checks/validate.js";
import { runCli, STACK_LINE } from "../support/cli.js";
import { rejection } from "../support/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "openapi-mcp-depth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where the request body's schema sits: 7 levels below the root. */
const BODY = "/paths/~1x/post/requestBody/content/application~1json/schema";

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** A request body of `levels` nested objects, as JSON text (built as text: JSON.stringify would overflow). */
function jsonDocument(levels: number): string {
  const schema = `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`;
  return `{"openapi":"3.0.3","info":{"title":"deep","version":"1"},"servers":[{"url":"https://deep.example"}],"paths":{"/x":{"post":{"operationId":"deep","requestBody":{"content":{"application/json":{"schema":${schema}}}},"responses":{"200":{"description":"ok"}}}}}}`;
}

/** The same in YAML: block style (indentation grows with depth), or flow style on one line. */
function yamlDocument(levels: number, style: "block" | "flow"): string {
  const head = [
    "openapi: 3.0.3",
    "info: {title: deep, version: '1'}",
    "servers: [{url: 'https://deep.example'}]",
    "paths:",
    "  /x:",
    "    post:",
  ];
  const body = [
    "      operationId: deep",
    "      responses: {'200': {description: ok}}",
    "      requestBody:",
    "        content:",
    "          application/json:",
  ];
  if (style === "flow")
    return [
      ...head,
      ...body,
      `            schema: ${"{type: object, properties: {a: ".repeat(levels)}{type: string}${"}}".repeat(levels)}`,
      "",
    ].join("\n");
  const lines = [...head, ...body, "            schema:"];
  let indent = "              ";
  for (let i = 0; i < levels; i++, indent += "    ")
    lines.push(`${indent}type: object`, `${indent}properties:`, `${indent}  a:`);
  lines.push(`${indent}type: string`, "");
  return lines.join("\n");
}

describe("a document nested too deeply", () => {
  it.each([
    ["JSON, 1,500 levels", "deep-1500.json", () => jsonDocument(1_500)],
    ["JSON, 100,000 levels", "deep-100000.json", () => jsonDocument(100_000)],
    ["YAML, 300 levels (block style)", "deep-300.yaml", () => yamlDocument(300, "block")],
    ["YAML, 1,500 levels (flow style)", "deep-1500.yaml", () => yamlDocument(1_500, "flow")],
    ["YAML, 100,000 levels (flow style)", "deep-100000.yaml", () => yamlDocument(100_000, "flow")],
  ])("%s: exit 1, naming the place and the limit, no stack trace", async (_, name, text) => {
    const file = write(name, text());
    const { code, stderr } = await runCli(["inspect", file]);
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`${name}`);
    expect(stderr).toContain(`#${BODY}/properties/a/properties/a/`);
    expect(stderr).toContain(`nested more than ${MAX_DOCUMENT_DEPTH} levels deep`);
    if (name.endsWith(".yaml")) expect(stderr).toMatch(new RegExp(`${name}:\\d+:\\d+ #`));
    expect(stderr).not.toMatch(STACK_LINE);
    expect(stderr).not.toContain("internal error");
  });

  it("one level past the limit is refused; at the limit it loads", async () => {
    // The root is level 0 and the body's schema level 7; each nested object adds two (properties, a): the
    // innermost schema is at 127, its enum list at 128.
    const innermost = (MAX_DOCUMENT_DEPTH - 7 - 1) / 2;
    const atLimit = write(
      "at-limit.json",
      jsonDocument(innermost).replace('{"type":"string"}', '{"type":"string","enum":["x"]}'),
    );
    expect((await loadCatalog(atLimit)).tools).toHaveLength(1);
    const over = write(
      "over-limit.json",
      jsonDocument(innermost).replace('{"type":"string"}', '{"type":"string","enum":[["x"]]}'),
    );
    const { message } = await rejection(loadCatalog(over));
    expect(message).toContain(`over-limit.json #${BODY}/properties/a/`);
    expect(message).toContain(`/properties/a/enum/0: nested more than ${MAX_DOCUMENT_DEPTH} levels deep`);
  });

  it("external files within the limit that nest too deeply once bundled are refused too", async () => {
    const half = (MAX_DOCUMENT_DEPTH - 8) / 2 - 4;
    write(
      "part.json",
      JSON.stringify({
        Deep: JSON.parse(jsonDocument(half)).paths["/x"].post.requestBody.content["application/json"].schema,
      }),
    );
    const main = write("main.json", jsonDocument(half).replace('{"type":"string"}', '{"$ref":"part.json#/Deep"}'));
    const error = await rejection(loadCatalog(main));
    expect(error.code).toBe("E_TOO_DEEP");
    expect(error.message).toContain(`main.json #${BODY}/properties/a`);
  });
});

describe("a document at the limit, in each nesting shape", () => {
  const shapes: Record<string, (inner: object) => object> = {
    properties: (s) => ({ type: "object", properties: { a: s } }),
    items: (s) => ({ type: "array", items: s }),
    allOf: (s) => ({ allOf: [s] }),
    "nullable allOf": (s) => ({ nullable: true, allOf: [s] }),
    not: (s) => ({ not: s }),
    additionalProperties: (s) => ({ type: "object", additionalProperties: s }),
  };
  const documentWith = (schema: object) => {
    const content = { "application/json": { schema } };
    return {
      openapi: "3.0.3",
      info: { title: "deep", version: "1" },
      servers: [{ url: "https://deep.example" }],
      paths: {
        "/x": {
          post: { operationId: "deep", requestBody: { content }, responses: { 200: { description: "ok", content } } },
        },
      },
    };
  };
  /** The level of the deepest object or array (the root's is 0), as tooDeep counts. */
  const depthOf = (value: unknown): number =>
    value !== null && typeof value === "object" ? 1 + Math.max(-1, ...Object.values(value).map(depthOf)) : -1;

  it.each(Object.keys(shapes))("%s: converted, listed, compiled and typed", async (shape) => {
    let schema: object = { type: "string" };
    while (depthOf(documentWith(shapes[shape]!(schema))) <= MAX_DOCUMENT_DEPTH) schema = shapes[shape]!(schema);
    expect(depthOf(documentWith(schema))).toBeGreaterThan(MAX_DOCUMENT_DEPTH - 3);
    const catalog = await loadCatalog(write(`${shape}.json`, JSON.stringify(documentWith(schema))));
    const [tool] = catalog.tools;
    expect(JSON.stringify(new Listing(catalog).entry(tool!)).length).toBeGreaterThan(0);
    const validator = new Validator({ definitions: catalog.definitions });
    expect(validator.arguments(tool!, { body: 1 }).some((m) => m.uncheckable)).toBe(false);
    expect(validator.output(tool!, { result: 1 }).some((m) => m.uncheckable)).toBe(false);
    expect(renderTypes(catalog)).toContain("DeepInput");
  });
});

describe("a chain of 1,000 shallow schemas, each referring to the next", () => {
  it("loads and lists; a call is an error result that says why, and nothing is sent", async () => {
    const schemas: Record<string, object> = {};
    for (let i = 0; i < 1_000; i++)
      schemas[`S${i}`] = {
        type: "object",
        properties: { next: i < 999 ? { $ref: `#/components/schemas/S${i + 1}` } : { type: "string" } },
      };
    const content = { "application/json": { schema: { $ref: "#/components/schemas/S0" } } };
    const document = {
      openapi: "3.0.3",
      info: { title: "chain", version: "1" },
      servers: [{ url: "https://chain.example" }],
      paths: {
        "/x": {
          post: { operationId: "chain", requestBody: { content }, responses: { 200: { description: "ok", content } } },
        },
      },
      components: { schemas },
    };
    const catalog = await loadCatalog(write("chain.json", JSON.stringify(document)));
    expect(new Listing(catalog).entry(catalog.tools[0]!).inputSchema).toBeDefined();
    const engine = new Engine({ catalog });
    for (let attempt = 0; attempt < 2; attempt++) {
      const prepared = await engine.prepare("chain", { body: {} });
      expect("error" in prepared && prepared.error.content[0]).toMatchObject({
        text: expect.stringContaining(
          "chain cannot be called: its arguments cannot be checked: the schema's chain of $refs is too long",
        ),
      });
    }
  });
});
