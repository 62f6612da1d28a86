import { describe, expect, it } from "vitest";
import { type Filterable, globToRegExp, parseFilter, parseFilters, passes } from "../../src/catalog/filter.js";

const pet: Filterable = {
  tags: ["Pets", "public"],
  operationId: "getPet",
  name: "getPet",
  path: "/pets/{petId}",
  method: "GET",
};

describe("filters", () => {
  it.each([
    { filter: "tag:pets", want: true },
    { filter: "tag:store", want: false },
    { filter: "op:getPet", want: true },
    { filter: "op:getpet", want: false },
    { filter: "method:get", want: true },
    { filter: "method:POST", want: false },
    { filter: "path:/pets/*", want: true },
    { filter: "path:/pets", want: false },
    { filter: "path:/pets/{petId}", want: true },
    { filter: "path:/**", want: true },
    { filter: "path:/p?ts/*", want: true },
    { filter: "path:/*", want: false },
  ])("$filter matches GET /pets/{petId}: $want", ({ filter, want }) => {
    expect(parseFilter(filter).matches(pet)).toBe(want);
  });

  it("keeps what an include matches, then drops what an exclude matches", () => {
    const filters = parseFilters({ include: ["tag:pets"], exclude: ["method:DELETE"] });
    expect(passes(pet, filters)).toBe(true);
    expect(passes({ ...pet, method: "DELETE" }, filters)).toBe(false);
    expect(passes({ ...pet, tags: [] }, filters)).toBe(false);
    expect(passes({ ...pet, tags: [] }, parseFilters({}))).toBe(true);
  });

  it("globs: * and ? stay in a segment, ** crosses them, braces and dots are literal", () => {
    expect(globToRegExp("/a/*/c").test("/a/b/c")).toBe(true);
    expect(globToRegExp("/a/*/c").test("/a/b/x/c")).toBe(false);
    expect(globToRegExp("/a/**/c").test("/a/b/x/c")).toBe(true);
    expect(globToRegExp("/v1.json").test("/v1xjson")).toBe(false);
    expect(globToRegExp("/{a,b}").test("/a")).toBe(false);
  });

  it.each(["pets", "tag:", "verb:GET", ":x"])("refuses '%s' with a message listing the forms", (text) => {
    expect(() => parseFilter(text, "--include")).toThrow(
      /--include: '.*' is not a filter; use tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB/,
    );
  });
});
