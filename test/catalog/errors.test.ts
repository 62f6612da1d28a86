// What a message or a log line says of something thrown: an Error's message (or stack, for a bug), anything else
// as text.

import { describe, expect, it } from "vitest";
import { messageOf, stackOf } from "../../src/catalog/errors.js";

describe("messageOf and stackOf", () => {
  it("say an Error's message, and its stack for a bug", () => {
    const error = new Error("connect ECONNREFUSED 127.0.0.1:1");
    expect(messageOf(error)).toBe("connect ECONNREFUSED 127.0.0.1:1");
    expect(stackOf(error)).toMatch(/^Error: connect ECONNREFUSED 127\.0\.0\.1:1\n\s+at /);
  });

  it.each<[unknown, string]>([
    ["a string thrown", "a string thrown"],
    [42, "42"],
    [undefined, "undefined"],
    [{ code: "E" }, "[object Object]"],
  ])("say what else was thrown as text: %j", (thrown, text) => {
    expect(messageOf(thrown)).toBe(text);
    expect(stackOf(thrown)).toBe(text);
  });
});
