// How mismatches are told to the model: a few, each short, the rest counted.

import { describe, expect, it } from "vitest";
import type { Tool } from "../../src/catalog/types.js";
import { listMismatches } from "../../src/runtime/checks/mismatches.js";
import { Validator } from "../../src/runtime/checks/validate.js";

describe("listMismatches", () => {
  it("names the first few and counts the rest", () => {
    const mismatches = Array.from({ length: 12 }, (_, i) => ({ pointer: `/tags/${i}`, message: "must be string" }));
    expect(listMismatches({ mismatches, shown: 2 })).toBe(
      "tags[0] must be string; tags[1] must be string; and 10 more",
    );
  });

  it("cuts a long place in the middle and a long message at its end", () => {
    const listed = listMismatches({
      mismatches: [{ pointer: `/${"a".repeat(10_000)}/b`, message: "m".repeat(10_000) }],
      shown: 10,
    });
    expect(listed.length).toBeLessThan(400);
    expect(listed).toMatch(/^a+…a+\.b m+…$/);
  });

  it("a 500-value enum: twenty values named, and how many there are", () => {
    const values = Array.from({ length: 500 }, (_, i) => `v${i}`);
    const tool = {
      name: "e",
      inputSchema: { type: "object", properties: { kind: { enum: values } } },
    } as unknown as Tool;
    const [mismatch] = new Validator({ definitions: {} }).arguments(tool, { kind: "nope" });
    expect(mismatch?.message).toBe(
      `must be one of ${values
        .slice(0, 20)
        .map((v) => `"${v}"`)
        .join(", ")}, … (500 values in all)`,
    );
  });
});
