import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { SchemaDialect } from "../../src/catalog/document.js";
import { DefinitionIndex } from "../../src/catalog/schema/closure.js";
import { SchemaConverter } from "../../src/catalog/schema/convert.js";
import type { Direction } from "../../src/catalog/schema/direction.js";
import type { Diagnostic, JsonSchema } from "../../src/catalog/types.js";

function convert({
  schema,
  dialect = "oas30",
  direction = "input",
  root = {},
  inline = false,
}: {
  schema: unknown;
  dialect?: SchemaDialect;
  direction?: Direction;
  root?: unknown;
  inline?: boolean;
}): { out: JsonSchema; definitions: Record<string, JsonSchema>; diagnostics: Diagnostic[] } {
  const definitions: Record<string, JsonSchema> = {};
  const diagnostics: Diagnostic[] = [];
  const converter = new SchemaConverter({ root, dialect, file: "spec.yaml", definitions, diagnostics });
  const out = converter.convert(schema, { direction, pointer: "/x", inline });
  // Whatever comes out must compile as a self-contained 2020-12 schema.
  new Ajv2020({
    strict: true,
    strictTuples: false,
    strictTypes: false,
    allowUnionTypes: true,
    validateFormats: false,
  }).compile(new DefinitionIndex(definitions).selfContained(out) as object);
  return { out, definitions, diagnostics };
}

describe("schema conversion to JSON Schema 2020-12", () => {
  it.each<{ name: string; dialect?: SchemaDialect; given: unknown; want: unknown }>([
    { name: "nullable string (3.0)", given: { type: "string", nullable: true }, want: { type: ["string", "null"] } },
    {
      name: "nullable enum keeps null",
      given: { type: "string", enum: ["a"], nullable: true },
      want: { type: ["string", "null"], enum: ["a", null] },
    },
    {
      name: "nullable allOf",
      given: { allOf: [{ type: "string" }], nullable: true },
      want: { anyOf: [{ allOf: [{ type: "string" }] }, { type: "null" }] },
    },
    {
      name: "x-nullable (2.0)",
      dialect: "oas2",
      given: { type: "integer", "x-nullable": true },
      want: { type: ["integer", "null"] },
    },
    {
      name: "boolean exclusiveMinimum",
      given: { type: "number", minimum: 5, exclusiveMinimum: true },
      want: { type: "number", exclusiveMinimum: 5 },
    },
    {
      name: "false exclusiveMaximum",
      given: { type: "number", maximum: 9, exclusiveMaximum: false },
      want: { type: "number", maximum: 9 },
    },
    {
      name: "example becomes examples",
      given: { type: "string", example: "Rex" },
      want: { type: "string", examples: ["Rex"] },
    },
    {
      name: "descriptions, defaults, enums and formats carry over",
      given: { type: "string", description: "d", default: "a", enum: ["a", "b"], format: "uuid", title: "T" },
      want: { type: "string", description: "d", default: "a", enum: ["a", "b"], format: "uuid", title: "T" },
    },
    {
      name: "3.1 type arrays and const",
      dialect: "oas31",
      given: { type: ["string", "null"], const: "x", examples: ["x"] },
      want: { type: ["string", "null"], const: "x", examples: ["x"] },
    },
    { name: "Swagger file type", dialect: "oas2", given: { type: "file" }, want: { type: "string", format: "binary" } },
    {
      name: "draft-04 tuple",
      given: { type: "array", items: [{ type: "string" }, { type: "integer" }] },
      want: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] },
    },
    {
      name: "vendor and doc fields dropped",
      given: { type: "object", "x-foo": 1, xml: { name: "a" }, externalDocs: { url: "u" } },
      want: { type: "object" },
    },
    {
      name: "boolean property schemas become objects",
      dialect: "oas31",
      given: { type: "object", properties: { a: true, b: false } },
      want: { type: "object", properties: { a: {}, b: { not: {} } } },
    },
    { name: "required: true (draft 3) dropped", given: { type: "string", required: true }, want: { type: "string" } },
  ])("$name", ({ dialect, given, want }) => {
    expect(convert({ schema: given, ...(dialect ? { dialect } : {}) }).out).toEqual(want);
  });

  it.each([
    { given: { type: "strnig" }, want: {}, keyword: "type" },
    { given: { type: "string", minLength: -1 }, want: { type: "string" }, keyword: "minLength" },
    { given: { type: "string", pattern: "([a-z" }, want: { type: "string" }, keyword: "pattern" },
    { given: { type: "object", properties: "oops" }, want: { type: "object" }, keyword: "properties" },
    { given: { anyOf: [] }, want: {}, keyword: "anyOf" },
  ])("drops invalid $keyword with a warning naming the place", ({ given, want, keyword }) => {
    const { out, diagnostics } = convert({ schema: given });
    expect(out).toEqual(want);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      severity: "warning",
      code: "lossy-schema",
      file: "spec.yaml",
      pointer: `/x/${keyword}`,
    });
  });

  it.each([
    {
      name: "a lookahead",
      pattern: "^(?!aws:).+$",
      says: "cannot run in linear time (RE2: invalid or unsupported Perl syntax: `(?!`); the server does not check it",
    },
    {
      name: "a backreference",
      pattern: "^(a)\\1$",
      says: "cannot run in linear time (RE2: invalid escape sequence: `\\1`); the server does not check it",
    },
    {
      name: "a count above 1,000",
      pattern: "^[a-z]{0,4096}$",
      says: "repeats more than 1,000 times, RE2's limit; the server checks it without those upper bounds",
    },
  ])("keeps a pattern RE2 cannot run as written ($name), with a warning naming it", ({ pattern, says }) => {
    const { out, diagnostics } = convert({ schema: { type: "string", pattern } });
    expect(out).toEqual({ type: "string", pattern });
    expect(diagnostics).toEqual([
      expect.objectContaining({ severity: "warning", code: "pattern-not-enforced", pointer: "/x/pattern" }),
    ]);
    expect(diagnostics[0]!.message).toContain(says);
  });

  it("drops patternProperties whose pattern RE2 cannot run: neither matching every name nor none is right", () => {
    const schema = { type: "object", patternProperties: { "^(?!x-)": { type: "string" }, "^x-": { type: "integer" } } };
    const { out, diagnostics } = convert({ schema, dialect: "oas31" });
    expect(out).toEqual({ type: "object", patternProperties: { "^x-": { type: "integer" } } });
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: "pattern-not-enforced", pointer: "/x/patternProperties/^(?!x-)" }),
    ]);
  });

  it("leaves readOnly properties out of inputs and writeOnly ones out of outputs, with their required entries", () => {
    const schema = {
      type: "object",
      required: ["id", "name", "password"],
      properties: {
        id: { type: "string", readOnly: true },
        name: { type: "string" },
        password: { type: "string", writeOnly: true },
      },
    };
    expect(convert({ schema, direction: "input" }).out).toEqual({
      type: "object",
      required: ["name", "password"],
      properties: { name: { type: "string" }, password: { type: "string" } },
    });
    expect(convert({ schema, direction: "output" }).out).toEqual({
      type: "object",
      required: ["id", "name"],
      properties: { id: { type: "string" }, name: { type: "string" } },
    });
  });

  it("sees readOnly on the schema a property refers to", () => {
    const root = { components: { schemas: { Id: { type: "string", readOnly: true } } } };
    const schema = {
      type: "object",
      properties: { id: { $ref: "#/components/schemas/Id" }, name: { type: "string" } },
    };
    expect(convert({ schema, root }).out).toEqual({ type: "object", properties: { name: { type: "string" } } });
  });

  it("turns $refs into shared definitions, one per direction only where readOnly/writeOnly make them differ", () => {
    const root = {
      components: {
        schemas: {
          Tag: { type: "string" },
          Pet: {
            type: "object",
            properties: { id: { type: "integer", readOnly: true }, tag: { $ref: "#/components/schemas/Tag" } },
          },
          Owner: { type: "object", properties: { pet: { $ref: "#/components/schemas/Pet" } } },
        },
      },
    };
    const input = convert({ schema: { $ref: "#/components/schemas/Owner" }, root, direction: "input" });
    expect(input.out).toEqual({ $ref: "#/$defs/Owner.input" });
    expect(input.definitions).toEqual({
      "Owner.input": { type: "object", properties: { pet: { $ref: "#/$defs/Pet.input" } } },
      "Pet.input": { type: "object", properties: { tag: { $ref: "#/$defs/Tag" } } },
      Tag: { type: "string" },
    });
    const output = convert({ schema: { $ref: "#/components/schemas/Pet" }, root, direction: "output" });
    expect(output.definitions["Pet.output"]).toEqual({
      type: "object",
      properties: { id: { type: "integer" }, tag: { $ref: "#/$defs/Tag" } },
    });
  });

  it("tells direction apart through cycles", () => {
    // A ↔ B, and only B has a readOnly property: both differ by direction.
    const root = {
      components: {
        schemas: {
          A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" } } },
          B: {
            type: "object",
            properties: { a: { $ref: "#/components/schemas/A" }, id: { type: "string", readOnly: true } },
          },
        },
      },
    };
    const { definitions } = convert({ schema: { $ref: "#/components/schemas/A" }, root });
    expect(Object.keys(definitions).sort()).toEqual(["A.input", "B.input"]);
    expect(definitions["B.input"]).toEqual({ type: "object", properties: { a: { $ref: "#/$defs/A.input" } } });
  });

  it("expresses recursion with $defs, never by unbounded inlining", () => {
    const root = {
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
          },
        },
      },
    };
    const { out, definitions } = convert({ schema: { $ref: "#/components/schemas/Node" }, root, inline: true });
    expect(out).toEqual({
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
    });
    expect(definitions.Node).toEqual(out);
    const self = new DefinitionIndex(definitions).selfContained(out);
    const validate = new Ajv2020().compile(self as object);
    expect(validate({ children: [{ children: [] }] })).toBe(true);
    expect(validate({ children: [{ children: [1] }] })).toBe(false);
  });

  it("tells each oneOf branch which discriminator value selects it", () => {
    const root = {
      components: {
        schemas: { Dog: { type: "object", properties: { kind: { type: "string" } } }, Cat: { type: "object" } },
      },
    };
    const schema = {
      oneOf: [{ $ref: "#/components/schemas/Dog" }, { $ref: "#/components/schemas/Cat" }],
      discriminator: { propertyName: "kind", mapping: { dog: "#/components/schemas/Dog", doggo: "Dog" } },
    };
    const { out } = convert({ schema, root });
    expect(out).toEqual({
      oneOf: [
        { $ref: "#/$defs/Dog", type: "object", properties: { kind: { enum: ["dog", "doggo"] } }, required: ["kind"] },
        { $ref: "#/$defs/Cat", type: "object", properties: { kind: { const: "Cat" } }, required: ["kind"] },
      ],
    });
  });

  it("keeps $ref siblings in 3.1 and only the description in 3.0", () => {
    const root = { components: { schemas: { S: { type: "string" } } } };
    const schema = { $ref: "#/components/schemas/S", description: "why", maxLength: 3 };
    expect(convert({ schema, root, dialect: "oas31" }).out).toEqual({
      $ref: "#/$defs/S",
      description: "why",
      maxLength: 3,
    });
    expect(convert({ schema, root, dialect: "oas30" }).out).toEqual({ $ref: "#/$defs/S", description: "why" });
    expect(convert({ schema: { $ref: "#/components/schemas/S", nullable: true }, root }).out).toEqual({
      anyOf: [{ $ref: "#/$defs/S" }, { type: "null" }],
    });
  });

  it("reports a $ref that leads nowhere as an error naming its place", () => {
    const { out, diagnostics } = convert({
      schema: { type: "object", properties: { a: { $ref: "#/components/schemas/Missing" } } },
    });
    expect(out).toEqual({ type: "object", properties: { a: {} } });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "unresolved-ref",
        file: "spec.yaml",
        pointer: "/x/properties/a/$ref",
        message: expect.stringContaining("#/components/schemas/Missing"),
      }),
    ]);
  });

  it("keeps property names that are also Object.prototype names as own data", () => {
    const { out } = convert({
      schema: JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}',
      ),
    });
    const properties = (out as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(properties)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  });

  it("reads keywords named like Object.prototype members as unknown keywords, left out", () => {
    // `__proto__` once crashed the load (a TypeError); `constructor` and `toString` were copied into the schema.
    const schema = JSON.parse(
      '{"type":"string","__proto__":{"type":"integer"},"constructor":1,"toString":"x","hasOwnProperty":true}',
    );
    expect(convert({ schema }).out).toEqual({ type: "string" });
  });
});
