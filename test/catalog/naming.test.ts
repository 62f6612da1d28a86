import { describe, expect, it } from "vitest";
import {
  baseToolName,
  fitName,
  NameRegistry,
  nameFromRoute,
  sanitizeName,
  TOOL_NAME_PATTERN,
} from "../../src/catalog/naming.js";

describe("tool names", () => {
  it.each([
    // given operationId / method / path, want name
    { operationId: "listPets", method: "GET", path: "/pets", want: "listPets" },
    { operationId: "pets.list-all_v2", method: "GET", path: "/pets", want: "pets.list-all_v2" },
    { operationId: "repos/list-for-org", method: "GET", path: "/orgs/{org}/repos", want: "repos_list-for-org" },
    { operationId: "Get Pet By ID", method: "GET", path: "/pets/{id}", want: "Get_Pet_By_ID" },
    { operationId: "  ", method: "GET", path: "/pets/{petId}/toys", want: "get_pets_petId_toys" },
    { operationId: "获取用户", method: "POST", path: "/users", want: "post_users" },
    { operationId: undefined, method: "DELETE", path: "/pets/{petId}", want: "delete_pets_petId" },
    { operationId: undefined, method: "GET", path: "/", want: "get_root" },
    { operationId: undefined, method: "GET", path: "/v1/users.json", want: "get_v1_users.json" },
  ])("$operationId $method $path → $want", ({ operationId, method, path, want }) => {
    const choice = baseToolName({ method, path, ...(operationId !== undefined ? { operationId } : {}) });
    expect(choice.name).toBe(want);
    expect(choice.name).toMatch(TOOL_NAME_PATTERN);
  });

  it("reports how a name differs from the operationId", () => {
    expect(baseToolName({ operationId: "listPets", method: "GET", path: "/pets" }).changes).toEqual([]);
    expect(baseToolName({ operationId: "a/b", method: "GET", path: "/pets" }).changes).toEqual(["sanitized"]);
    expect(baseToolName({ method: "GET", path: "/pets" }).changes).toEqual(["derived"]);
  });

  it("namespaces names from a manifest source", () => {
    expect(baseToolName({ operationId: "search_cars", method: "GET", path: "/cars", namespace: "cars" }).name).toBe(
      "cars__search_cars",
    );
  });

  it("shortens long names to 64 characters with a hash of the whole name, the same on every run", () => {
    const long = `get_${"very_long_segment_".repeat(6)}end`;
    const first = fitName(long);
    expect(first).toHaveLength(64);
    expect(first).toMatch(TOOL_NAME_PATTERN);
    expect(first.startsWith("get_very_long_segment_")).toBe(true);
    expect(fitName(long)).toBe(first);
    // Names that differ only at the end stay distinct.
    expect(fitName(`${long}_a`)).not.toBe(fitName(`${long}_b`));
    const choice = baseToolName({ operationId: long, method: "GET", path: "/x" });
    // Only its length is wrong: shortened, not "sanitized".
    expect(choice.changes).toEqual(["shortened"]);
  });

  it("keeps a 64-character operationId as it is", () => {
    const exact = "a".repeat(64);
    expect(baseToolName({ operationId: exact, method: "GET", path: "/x" }).name).toBe(exact);
  });

  it("sanitizes to the characters MCP clients accept", () => {
    expect(sanitizeName("a b/c:d")).toBe("a_b_c_d");
    expect(sanitizeName("__x__")).toBe("x");
    expect(nameFromRoute({ method: "PATCH", path: "/a/{b}/c" })).toBe("patch_a_b_c");
  });
});

describe("unique names", () => {
  it("gives the first operation the name and renames later ones by their route, stably", () => {
    const run = (): string[] => {
      const registry = new NameRegistry();
      return [
        registry.claim("getPet", "GET /pets/{id}").name,
        registry.claim("getPet", "GET /v2/pets/{id}").name,
        registry.claim("getPet", "GET /v3/pets/{id}").name,
      ];
    };
    const names = run();
    expect(names[0]).toBe("getPet");
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(run()).toEqual(names);
  });

  it("stays within 64 characters when renaming a 64-character name", () => {
    const registry = new NameRegistry();
    const name = "x".repeat(64);
    registry.claim(name, "GET /a");
    const second = registry.claim(name, "GET /b");
    expect(second.renamed).toBe(true);
    expect(second.name).toMatch(TOOL_NAME_PATTERN);
    expect(second.name).not.toBe(name);
  });
});
