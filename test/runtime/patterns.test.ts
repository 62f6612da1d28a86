// The server's `pattern` checks run on RE2 (linear time) with JavaScript's meaning: the same verdicts as RegExp on
// what both can run, ECMAScript-only escapes translated, counts above RE2's 1,000 loosened (never tightened), and
// a pattern RE2 cannot run left unchecked rather than refusing good values.

import { describe, expect, it } from "vitest";
import { compileLinear } from "../../src/catalog/schema/pattern.js";
import type { Tool } from "../../src/catalog/types.js";
import { Validator } from "../../src/runtime/checks/validate.js";

function check(pattern: string, value: string): boolean {
  const tool = {
    name: "t",
    inputSchema: { type: "object", properties: { v: { type: "string", pattern } } },
  } as unknown as Tool;
  return new Validator({ definitions: {} }).arguments(tool, { v: value }).length === 0;
}

describe("patterns on RE2", () => {
  it.each([
    ["^[A-Z]{2}-\\d{4}$", ["AB-1234"], ["ab-1234", "AB-12345"]],
    ["^\\u00e9t\\u00e9$", ["été"], ["ete"]],
    ["^\\p{L}+$", ["Grüße"], ["a1"]],
    ["^(?<year>\\d{4})-\\d{2}$", ["2024-05"], ["24-05"]],
    ["[a-z]+@[a-z]+\\.com", ["say hi@x.com today"], ["hi@x.org"]],
  ])("%s: the same verdicts as JavaScript's RegExp", (pattern, good, bad) => {
    for (const value of good) expect([value, check(pattern, value)]).toEqual([value, true]);
    for (const value of bad) expect([value, check(pattern, value)]).toEqual([value, false]);
    for (const value of [...good, ...bad]) expect(check(pattern, value)).toBe(new RegExp(pattern, "u").test(value));
  });

  it("loosens counts above 1,000 and nothing else: the characters are still checked", () => {
    expect(check("^[a-z]{0,4096}$", "a".repeat(5_000))).toBe(true);
    expect(check("^[a-z]{0,4096}$", "abC")).toBe(false);
    expect(check("^x{2000}$", "x".repeat(1_000))).toBe(true);
    expect(check("^x{2000}$", "x".repeat(999))).toBe(false);
    // Braces that are not counts are left as they are.
    expect(check("^\\{2000\\}$", "{2000}")).toBe(true);
    expect(check("^[{2000}]+$", "{0}")).toBe(true);
  });

  it("leaves a pattern RE2 cannot run unchecked, rather than refusing values the document allows", () => {
    expect("refused" in compileLinear("^(?!aws:).+$")).toBe(true);
    expect(check("^(?!aws:).+$", "aws:reserved")).toBe(true);
  });

  it("runs a pattern that backtracks catastrophically in linear time", () => {
    // A backtracking engine would not finish this in the lifetime of the test run.
    expect(check("^(a+)+$", `${"a".repeat(5_000)}!`)).toBe(false);
  });
});
