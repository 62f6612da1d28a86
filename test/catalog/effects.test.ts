// The side-effect class: the method's, unless the spec's author states one (x-mcp effect, or readOnlyHint /
// destructiveHint), and annotations that always agree with it.

import { describe, expect, it } from "vitest";
import { annotationsFor, classify } from "../../src/catalog/effects.js";
import type { HttpMethod, SideEffect } from "../../src/catalog/types.js";

describe("classify", () => {
  it.each<{
    method: HttpMethod;
    given: { effect?: SideEffect; readOnlyHint?: boolean; destructiveHint?: boolean };
    want: SideEffect;
  }>([
    { method: "GET", given: {}, want: "read" },
    { method: "POST", given: {}, want: "write" },
    { method: "DELETE", given: {}, want: "destructive" },
    { method: "POST", given: { effect: "read" }, want: "read" },
    { method: "GET", given: { effect: "destructive" }, want: "destructive" },
    { method: "POST", given: { readOnlyHint: true }, want: "read" },
    { method: "POST", given: { destructiveHint: true }, want: "destructive" },
    // A GET that changes things: destructive without saying readOnlyHint: false.
    { method: "GET", given: { destructiveHint: true }, want: "destructive" },
    { method: "GET", given: { readOnlyHint: false }, want: "write" },
    { method: "DELETE", given: { destructiveHint: false }, want: "write" },
    { method: "DELETE", given: { readOnlyHint: false }, want: "destructive" },
    { method: "PUT", given: { destructiveHint: false }, want: "write" },
  ])("$method with $given is $want", ({ method, given, want }) => {
    expect(classify({ method, ...given })).toBe(want);
  });

  it("annotations follow the class; idempotence and open world may be overridden", () => {
    expect(annotationsFor({ method: "POST", title: "Search", effect: "read" })).toEqual({
      title: "Search",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(
      annotationsFor({ method: "POST", title: "t", effect: "destructive", idempotentHint: true, openWorldHint: false }),
    ).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});
