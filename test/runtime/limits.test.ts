// The bounds on a call's arguments (bytes, depth, values in all, items in one array), measured before anything
// validates them, and validation that looks for every mismatch only in a small value.

import { describe, expect, it } from "vitest";
import type { Tool } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import {
  atMostValues,
  DEFAULT_MAX_ARGUMENT_VALUES,
  DEFAULT_MAX_ARRAY_ITEMS,
  measureArguments,
} from "../../src/runtime/checks/bounds.js";
import { THOROUGH_VALUES, Validator } from "../../src/runtime/checks/validate.js";
import { fixture } from "../support/fixtures.js";

const BOUNDS = {
  maxBytes: 4 * 1024 * 1024,
  maxValues: DEFAULT_MAX_ARGUMENT_VALUES,
  maxArrayItems: DEFAULT_MAX_ARRAY_ITEMS,
};

describe("measureArguments", () => {
  it("counts the values of arguments within bounds", () => {
    expect(measureArguments({ a: [1, "two", { three: null }], b: true }, BOUNDS)).toEqual({ values: 7 });
  });

  it("refuses an array longer than the bound, naming both numbers", () => {
    expect(measureArguments({ tags: new Array(2_000_000).fill(0) }, BOUNDS)).toEqual({
      tooBig: "an array of 2000000 items, more than 10000",
    });
  });

  it("refuses more values in all than the bound, though each array is within its own", () => {
    const args = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, new Array(9_999).fill(0)]));
    expect(measureArguments(args, BOUNDS)).toEqual({ tooBig: "more than 100000 values in all" });
    expect(measureArguments({ a: new Array(9_999).fill(0) }, BOUNDS)).toEqual({ values: 10_001 });
  });

  it("counts the fields of one wide object too", () => {
    const wide = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`k${i}`, i]));
    expect(measureArguments(wide, BOUNDS)).toEqual({ tooBig: "more than 100000 values in all" });
  });

  it("takes other bounds (the engine's maxArgumentValues and maxArrayItems)", () => {
    const small = { ...BOUNDS, maxValues: 5, maxArrayItems: 3 };
    expect(measureArguments({ a: [1, 2, 3] }, small)).toEqual({ values: 5 });
    expect(measureArguments({ a: [1, 2, 3, 4] }, small)).toEqual({ tooBig: "an array of 4 items, more than 3" });
    expect(measureArguments({ a: [1, 2], b: [3] }, small)).toEqual({ tooBig: "more than 5 values in all" });
  });

  it("keeps the byte and depth bounds", () => {
    expect(measureArguments({ s: "x".repeat(5_000_000) }, BOUNDS)).toEqual({ tooBig: "more than 4194304 bytes" });
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(measureArguments(deep, BOUNDS)).toEqual({ tooBig: "nested more than 64 levels deep" });
  });
});

describe("atMostValues", () => {
  it("says whether a value holds at most so many values", () => {
    expect(atMostValues([1, [2, 3]], 5)).toBe(true);
    expect(atMostValues([1, [2, 3]], 4)).toBe(false);
    expect(atMostValues({ a: 1, b: { c: 2 } }, 4)).toBe(true);
    expect(atMostValues({ a: 1, b: { c: 2 } }, 3)).toBe(false);
  });
});

describe("Validator", () => {
  const tool = {
    name: "t",
    inputSchema: {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string" } }, name: { type: "string" } },
    },
  } as unknown as Tool;

  it("lists every mismatch of a small value", () => {
    const mismatches = new Validator({ definitions: {} }).arguments(tool, { tags: [1, "a", 2], name: 3 });
    expect(mismatches.map((m) => m.pointer)).toEqual(["/tags/0", "/tags/2", "/name"]);
    expect(mismatches.partial).toBeUndefined();
  });

  it("stops at the first mismatch of a large value, and says so", () => {
    const mismatches = new Validator({ definitions: {} }).arguments(tool, {
      tags: new Array(THOROUGH_VALUES).fill(0),
      name: 3,
    });
    expect(mismatches).toEqual(Object.assign([{ pointer: "/tags/0", message: "must be string" }], { partial: true }));
  });
});

describe("the engine", () => {
  it("takes maxArgumentValues and maxArrayItems, and refuses over them with the bound named", async () => {
    const engine = new Engine({
      catalog: await loadCatalog(fixture("e2e/bounds.openapi.yaml")),
      maxArgumentValues: 6,
      maxArrayItems: 2,
    });
    const text = async (args: unknown): Promise<string> => {
      const result = await engine.callTool("createPet", args);
      expect(result.isError).toBe(true);
      return result.content.map((block) => ("text" in block ? block.text : "")).join("");
    };
    expect(await text({ body: { name: "Rex", tags: ["a", "b", "c"] } })).toBe(
      "The arguments for createPet are too big (an array of 3 items, more than 2). Nothing was sent; send less (for files, a smaller one).",
    );
    expect(await text({ body: { name: "Rex", tags: ["a", "b"], x: 1, y: 2 } })).toContain(
      "too big (more than 6 values in all)",
    );
  });
});
