// OpenAPI 3.0 operations as tools: names (derived, shortened, de-duplicated), output schemas (wrapped or absent),
// side-effect classes and annotations by method, and credentials named after their schemes.

import { beforeAll, describe, expect, it } from "vitest";
import { MAX_TOOL_NAME_LENGTH, TOOL_NAME_PATTERN } from "../../src/catalog/naming.js";
import type { Catalog } from "../../src/catalog/types.js";
import { loadFixture, names, toolNamed, validatorFor } from "../support/fixtures.js";

const SPEC = "openapi30/zoo.openapi.json";
const LONG_ID = "listAllTheMonthlyReportsForEveryEnclosureIncludingThoseUnderRenovation";
let catalog: Catalog;

beforeAll(async () => {
  catalog = await loadFixture(SPEC);
});

describe("tool names", () => {
  it("keeps valid operationIds unchanged", () => {
    expect(names(catalog)).toEqual(
      expect.arrayContaining(["listAnimals", "createAnimal", "getAnimal", "search", "getTree"]),
    );
  });

  it("derives a name from method and path when there is no operationId", () => {
    const tool = catalog.tools.find((t) => t.operation.path === "/animals/{animalId}/toys")!;
    expect(tool.name).toBe("get_animals_animalId_toys");
    expect(tool.origin.operationId).toBeUndefined();
  });

  it("shortens an operationId longer than 64 characters, deterministically, and says so", async () => {
    const tool = catalog.tools.find((t) => t.origin.operationId === LONG_ID)!;
    expect(LONG_ID.length).toBeGreaterThan(MAX_TOOL_NAME_LENGTH);
    expect(tool.name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(tool.name).toMatch(TOOL_NAME_PATTERN);
    expect(tool.name.startsWith("listAllTheMonthlyReports")).toBe(true);
    const again = await loadFixture(SPEC);
    expect(again.tools.find((t) => t.origin.operationId === LONG_ID)!.name).toBe(tool.name);
    expect(catalog.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "warning", code: "name-shortened", tool: tool.name }),
    );
  });

  it("makes duplicate operationIds unique, stably, with a warning naming the second", async () => {
    const dups = catalog.tools.filter((t) => t.origin.operationId === "duplicate");
    expect(dups.map((t) => t.operation.path)).toEqual(["/dup/a", "/dup/b"]);
    expect(dups[0]!.name).toBe("duplicate");
    expect(dups[1]!.name).toMatch(/^duplicate_[0-9a-f]+$/);
    const again = await loadFixture(SPEC);
    expect(again.tools.filter((t) => t.origin.operationId === "duplicate").map((t) => t.name)).toEqual(
      dups.map((t) => t.name),
    );
    expect(catalog.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "warning",
        code: "duplicate-name",
        pointer: "/paths/~1dup~1b/get",
        tool: dups[1]!.name,
      }),
    );
  });

  it("gives every tool a unique, valid name", () => {
    expect(new Set(names(catalog)).size).toBe(catalog.tools.length);
    for (const name of names(catalog)) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});

describe("output schemas", () => {
  it.each([
    { tool: "countAnimals", result: { type: "array", items: { type: "integer", minimum: 0 } } },
    { tool: "recordMeasurement", result: { type: "number" } },
    { tool: "get_animals_animalId_toys", result: { type: "array", items: { type: "string" } } },
  ])("wraps the non-object 2xx response of $tool as {result}", ({ tool, result }) => {
    const t = toolNamed(catalog, tool);
    expect(t.outputWrapped).toBe(true);
    expect(t.outputSchema).toEqual({ type: "object", properties: { result }, required: ["result"] });
  });

  it("validates a wrapped response", () => {
    const valid = validatorFor(catalog, "countAnimals", "output");
    expect(valid({ result: [3, 0, 12] })).toBe(true);
    expect(valid({ result: [-1] })).toBe(false);
    expect(valid([3, 0, 12])).toBe(false);
  });

  it("uses an object response as it is", () => {
    const tool = toolNamed(catalog, "search");
    expect(tool.outputWrapped).toBeFalsy();
    expect(tool.outputSchema).toEqual({ type: "object", properties: { hits: { type: "integer" } } });
  });

  it.each(["deleteAnimal", "animalOptions", "animalExists", "addContact", "duplicate"])(
    "gives %s (no JSON 2xx body) no output schema",
    (name) => {
      const tool = toolNamed(catalog, name);
      expect(tool.outputSchema).toBeUndefined();
      expect(tool.outputWrapped).toBeFalsy();
    },
  );
});

describe("side effects and annotations", () => {
  it.each([
    {
      tool: "getAnimal",
      method: "GET",
      effect: "read",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    },
    {
      tool: "animalExists",
      method: "HEAD",
      effect: "read",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    },
    {
      tool: "animalOptions",
      method: "OPTIONS",
      effect: "read",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    },
    {
      tool: "createAnimal",
      method: "POST",
      effect: "write",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    },
    {
      tool: "replaceAnimal",
      method: "PUT",
      effect: "write",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    },
    {
      tool: "patchAnimal",
      method: "PATCH",
      effect: "write",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    },
    {
      tool: "deleteAnimal",
      method: "DELETE",
      effect: "destructive",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    },
  ])("$method is $effect", ({ tool, method, effect, readOnlyHint, destructiveHint, idempotentHint }) => {
    const t = toolNamed(catalog, tool);
    expect(t.operation.method).toBe(method);
    expect(t.effect).toBe(effect);
    expect(t.annotations).toEqual({
      title: t.title,
      readOnlyHint,
      destructiveHint,
      idempotentHint,
      openWorldHint: true,
    });
  });

  it("titles a tool by its summary and describes it with summary and description", () => {
    const tool = toolNamed(catalog, "getAnimal");
    expect(tool.title).toBe("Get an animal");
    expect(tool.description).toBe("Get an animal");
  });
});

describe("credentials", () => {
  it("names environment variables after the scheme: upper-cased, other characters as _", () => {
    expect(catalog.credentials).toEqual({
      zoo_key: {
        name: "zoo_key",
        type: "apiKey",
        in: "header",
        parameter: "x-zoo-key",
        value: { env: "API_KEY_ZOO_KEY" },
      },
      bearerAuth: { name: "bearerAuth", type: "bearer", token: { env: "BEARER_TOKEN_BEARERAUTH" } },
      "session-cookie": {
        name: "session-cookie",
        type: "apiKey",
        in: "cookie",
        parameter: "zoo_session",
        value: { env: "API_KEY_SESSION_COOKIE" },
      },
    });
  });

  it("applies document security unless the operation states its own", () => {
    expect(toolNamed(catalog, "listAnimals").operation.security).toEqual([
      { schemes: [{ id: "zoo_key", scopes: [] }] },
    ]);
    expect(toolNamed(catalog, "createAccount").operation.security).toEqual([
      { schemes: [{ id: "bearerAuth", scopes: [] }] },
    ]);
  });
});

describe("operations that may succeed without content", () => {
  it("advertise no output schema, since an empty success could not match it; others keep theirs", async () => {
    const mixed = await loadFixture("openapi30/mixed-success.openapi.yaml");
    expect(toolNamed(mixed, "putSecret").outputSchema).toBeUndefined();
    expect(toolNamed(mixed, "getSecret").outputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
    });
  });
});
