// OpenAPI 3.0 schemas as a client sees them: allOf/oneOf/anyOf, discriminators, nullable, readOnly/writeOnly,
// recursion through $defs, boolean exclusiveMinimum, and the annotations the model reads.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { errors, listed, loadFixture, schemaProblems, toolNamed, validatorFor } from "../support/fixtures.js";

let catalog: Catalog;

beforeAll(async () => {
  catalog = await loadFixture("openapi30/zoo.openapi.json");
});

type Schema = Record<string, unknown>;
const def = (key: string): Schema => catalog.definitions[key] as Schema;

describe("OpenAPI 3.0 schemas", () => {
  it("loads without errors and every listed schema compiles with Ajv2020", () => {
    expect(errors(catalog)).toEqual([]);
    expect(schemaProblems(catalog)).toEqual([]);
  });

  it("keeps allOf as allOf of shared definitions", () => {
    expect(toolNamed(catalog, "createAnimal").inputSchema.properties).toEqual({
      body: { $ref: "#/$defs/Animal.input" },
    });
    expect(def("Animal.input").allOf).toEqual([
      { $ref: "#/$defs/Base.input" },
      expect.objectContaining({ type: "object", required: ["name", "species"] }),
    ]);
    const valid = validatorFor(catalog, "createAnimal", "input");
    expect(valid({ body: { name: "Leo", species: "lion" } })).toBe(true);
    expect(valid({ body: { name: "Leo", species: "tiger" } })).toBe(false);
    expect(valid({ body: { name: "Leo" } })).toBe(false);
  });

  it("describes an allOf of objects as an object, not wrapped as {result}", () => {
    const tool = toolNamed(catalog, "getAnimal");
    expect(tool.outputWrapped).toBeFalsy();
    const valid = validatorFor(catalog, "getAnimal", "output");
    expect(valid({ id: 7, name: "Leo", species: "lion" })).toBe(true);
  });

  it("tells each oneOf branch the discriminator value that selects it, from the mapping", () => {
    expect(def("Pet").oneOf).toEqual([
      { $ref: "#/$defs/Dog", type: "object", properties: { petType: { const: "dog" } }, required: ["petType"] },
      { $ref: "#/$defs/Cat", type: "object", properties: { petType: { const: "kitty" } }, required: ["petType"] },
    ]);
    expect(def("Pet")).not.toHaveProperty("discriminator");
    const valid = validatorFor(catalog, "adoptPet", "input");
    expect(valid({ body: { petType: "dog", bark: true } })).toBe(true);
    expect(valid({ body: { petType: "kitty", indoor: true } })).toBe(true);
    expect(valid({ body: { petType: "cat", indoor: true } })).toBe(false);
  });

  it("keeps anyOf", () => {
    expect(def("Contact")).toEqual({ anyOf: [{ $ref: "#/$defs/Email" }, { $ref: "#/$defs/Phone" }] });
    const valid = validatorFor(catalog, "addContact", "input");
    expect(valid({ body: { phone: "+44 20 7946 0000" } })).toBe(true);
    expect(valid({ body: { fax: "123" } })).toBe(false);
  });

  it.each([
    { given: "nullable: true on a plain schema", key: "nickname", want: { type: ["string", "null"] } },
    {
      given: "nullable: true beside a $ref",
      key: "manager",
      want: { anyOf: [{ $ref: "#/$defs/Keeper", description: "Who manages the account." }, { type: "null" }] },
    },
  ])("turns $given into a schema that accepts null", ({ key, want }) => {
    expect((def("Account.input").properties as Schema)[key]).toEqual(want);
    expect((def("Account.output").properties as Schema)[key]).toEqual(want);
  });

  it("accepts null for nullable allOf members", () => {
    const valid = validatorFor(catalog, "createAnimal", "input");
    expect(valid({ body: { name: "Leo", species: "lion", keeper: null } })).toBe(true);
    expect(valid({ body: { name: "Leo", species: "lion", keeper: { name: "Ann" } } })).toBe(true);
  });
});

describe("readOnly and writeOnly", () => {
  it("leaves readOnly properties out of the input, and out of its required list", () => {
    const input = def("Account.input");
    expect(Object.keys(input.properties as Schema)).toEqual(["username", "password", "nickname", "manager", "status"]);
    expect(input.required).toEqual(["username", "password"]);
  });

  it("leaves writeOnly properties out of the output, and out of its required list", () => {
    const output = toolNamed(catalog, "createAccount").outputSchema!;
    expect(Object.keys(output.properties as Schema)).toEqual(["id", "username", "nickname", "manager", "status"]);
    expect(output.required).toEqual(["id", "username"]);
  });

  it("applies through allOf: the shared Base differs by direction", () => {
    expect(def("Base.input")).toEqual({ type: "object", properties: {} });
    expect(def("Base.output")).toEqual({
      type: "object",
      properties: { id: { type: "integer", format: "int64" }, createdAt: { type: "string", format: "date-time" } },
      required: ["id"],
    });
    const input = validatorFor(catalog, "createAccount", "input");
    expect(input({ body: { username: "ann", password: "s3cret" } })).toBe(true);
    expect(input({ body: { username: "ann" } })).toBe(false);
  });
});

describe("recursion", () => {
  it("expresses a recursive schema with $defs and $ref instead of inlining it", () => {
    const entry = listed(catalog, "getTree");
    expect(entry.outputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["name"],
      $defs: { Node: def("Node") },
    });
    expect(def("Node")).toEqual({
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["name"],
    });
    expect(JSON.stringify(entry).length).toBeLessThan(2_000);
  });

  it("validates a tree three levels deep", () => {
    const valid = validatorFor(catalog, "getTree", "output");
    expect(valid({ name: "a", children: [{ name: "b", children: [{ name: "c", children: [] }] }] })).toBe(true);
    expect(valid({ name: "a", children: [{ name: "b", children: [{ children: [] }] }] })).toBe(false);
  });
});

describe("keywords the model reads", () => {
  it("turns boolean exclusiveMinimum into the 2020-12 number and keeps a non-exclusive maximum", () => {
    const value = (def("Measurement").properties as Schema).value as Schema;
    expect(value).toEqual({ type: "number", exclusiveMinimum: 0, maximum: 100, examples: [42.5] });
    const valid = validatorFor(catalog, "recordMeasurement", "input");
    expect(valid({ body: { value: 0 } })).toBe(false);
    expect(valid({ body: { value: 0.1 } })).toBe(true);
    expect(valid({ body: { value: 100 } })).toBe(true);
  });

  it("carries enums, defaults, formats, patterns, descriptions and examples over", () => {
    expect(def("Species")).toEqual({
      type: "string",
      description: "A species the zoo keeps.",
      enum: ["lion", "zebra", "penguin"],
      default: "zebra",
    });
    expect((def("Measurement").properties as Schema).unit).toEqual({
      type: "string",
      enum: ["kg", "lb"],
      default: "kg",
    });
    expect((def("Animal.input").allOf as Schema[])[1]!.properties).toMatchObject({
      name: { type: "string", description: "The animal's name.", examples: ["Leo"] },
      weight: { type: "number", format: "double", minimum: 0 },
    });
    expect((def("Account.input").properties as Schema).username).toEqual({
      type: "string",
      minLength: 3,
      maxLength: 32,
      pattern: "^[a-z][a-z0-9_]*$",
    });
    expect(JSON.stringify(catalog.definitions)).not.toMatch(/"(example|nullable|readOnly|writeOnly|discriminator)"/);
  });
});
