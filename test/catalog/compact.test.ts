import { describe, expect, it } from "vitest";
import { compactSchema, type SchemaUse } from "../../src/catalog/schema/compact.js";
import type { JsonSchema } from "../../src/catalog/types.js";

describe("compacting a schema for tools/list", () => {
  it.each<{ name: string; use?: SchemaUse; given: JsonSchema; want: JsonSchema; named?: string }>([
    {
      name: "a title repeating the property name goes",
      given: { properties: { full_name: { type: "string", title: "Full Name" } } },
      want: { properties: { full_name: { type: "string" } } },
    },
    {
      name: "a title repeating the definition's name goes",
      named: "simple-user",
      given: { type: "object", title: "Simple User" },
      want: { type: "object" },
    },
    {
      name: "a title repeating the description goes",
      given: { title: "The id.", description: "the id" },
      want: { description: "the id" },
    },
    {
      name: "a title that says more stays",
      given: { properties: { org: { title: "Organization login" } } },
      want: { properties: { org: { title: "Organization login" } } },
    },
    {
      name: "blank descriptions and titles go",
      given: { type: "string", description: " ", title: "" },
      want: { type: "string" },
    },
    { name: "an example that is the default goes", given: { default: 30, examples: [30] }, want: { default: 30 } },
    { name: "other examples stay", given: { default: 30, examples: [50] }, want: { default: 30, examples: [50] } },
    { name: "empty examples go", given: { type: "integer", examples: [] }, want: { type: "integer" } },
    {
      name: "deprecated: false goes, true stays",
      given: { properties: { a: { deprecated: false }, b: { deprecated: true } } },
      want: { properties: { a: {}, b: { deprecated: true } } },
    },
    { name: "empty required goes", given: { type: "object", required: [] }, want: { type: "object" } },
    {
      name: "empty nested properties go",
      given: { properties: { settings: { type: "object", properties: {}, additionalProperties: false } } },
      want: { properties: { settings: { type: "object", additionalProperties: false } } },
    },
    {
      name: "inside every subschema keyword",
      given: { items: { anyOf: [{ title: "", type: "string" }], not: { description: "" } } },
      want: { items: { anyOf: [{ type: "string" }], not: {} } },
    },
    {
      name: "outputs keep only what validates",
      use: "output",
      given: {
        title: "Repo",
        description: "A repo.",
        type: "object",
        required: ["id"],
        properties: {
          id: {
            type: "integer",
            format: "int64",
            description: "Id.",
            examples: [1],
            default: 0,
            deprecated: true,
            enum: [1, 2],
          },
        },
      },
      want: {
        type: "object",
        required: ["id"],
        properties: { id: { type: "integer", format: "int64", enum: [1, 2] } },
      },
    },
    {
      name: "outputs advertise no pattern (the server checks them; a client's RegExp could backtrack on a response)",
      use: "output",
      given: { type: "object", properties: { code: { type: "string", pattern: "^(a+)+$", minLength: 1 } } },
      want: { type: "object", properties: { code: { type: "string", minLength: 1 } } },
    },
    {
      name: "inputs keep their patterns (the model reads them)",
      given: { type: "string", pattern: "^[a-z]+$" },
      want: { type: "string", pattern: "^[a-z]+$" },
    },
  ])("$name", ({ given, want, use = "input", named }) => {
    expect(compactSchema(given, { use, ...(named ? { name: named } : {}) })).toEqual(want);
  });

  it("keeps the top-level properties a client looks for, even when empty", () => {
    expect(
      compactSchema({ type: "object", properties: {}, additionalProperties: false }, { use: "input", top: true }),
    ).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("leaves data alone: property names, enums, defaults and examples that look like keywords", () => {
    // JSON.parse makes `__proto__` an own property, as a document's property of that name is.
    const schema = JSON.parse(`{
      "type": "object",
      "properties": { "title": { "type": "string" }, "description": { "type": "string", "description": "" }, "__proto__": { "type": "string", "title": "__proto__" } },
      "default": { "title": "", "description": "" },
      "examples": [{ "deprecated": false }],
      "enum": [{ "required": [] }]
    }`) as Record<string, unknown>;
    const out = compactSchema(schema, { use: "input" }) as Record<string, Record<string, unknown>>;
    expect(Object.keys(out.properties!)).toEqual(["title", "description", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(out.properties, "__proto__")?.value).toEqual({ type: "string" });
    expect(out.properties!.description).toEqual({ type: "string" });
    expect({ default: out.default, examples: out.examples, enum: out.enum }).toEqual({
      default: schema.default,
      examples: schema.examples,
      enum: schema.enum,
    });
  });

  it("changes nothing in place and returns what did not change as it was (schemas are shared by many tools)", () => {
    const unchanged = { type: "object", properties: { id: { type: "integer", description: "Id." } } };
    expect(compactSchema(unchanged, { use: "input" })).toBe(unchanged);
    const inner = { type: "string" };
    const given = { properties: { a: { title: "a", type: "string" }, b: inner } };
    const copy = JSON.parse(JSON.stringify(given)) as unknown;
    const out = compactSchema(given, { use: "input" }) as { properties: Record<string, unknown> };
    expect(given).toEqual(copy);
    expect(out.properties.b).toBe(inner);
  });
});
