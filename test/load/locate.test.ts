// Line and column of JSON pointers, found in one pass over a JSON or YAML text: what `validate` prints before each
// message. A pointer that leads nowhere points at its nearest existing parent.

import { describe, expect, it } from "vitest";
import { locatePointers } from "../../src/load/locate.js";

describe("locatePointers", () => {
  it("finds values in JSON, escaped keys and array items included, stepping over strings with braces", () => {
    const text = '{\n  "a": { "b": [1, {"c": "x\\"}{"}, 3] },\n  "d~e/f": true,\n  "g": {}\n}';
    const places = locatePointers({ text, pointers: ["", "/a", "/a/b/1/c", "/a/b/2", "/d~0e~1f", "/g/missing"] });
    expect(Object.fromEntries(places)).toEqual({
      "": { line: 1, column: 1 },
      "/a": { line: 2, column: 8 },
      "/a/b/1/c": { line: 2, column: 25 },
      "/a/b/2": { line: 2, column: 35 },
      "/d~0e~1f": { line: 3, column: 12 },
      "/g/missing": { line: 4, column: 8 },
    });
  });

  it("finds values in YAML", () => {
    const text = "openapi: 3.0.3\npaths:\n  /pets/{id}:\n    get:\n      responses: {}\n";
    const places = locatePointers({
      text,
      pointers: ["/paths/~1pets~1{id}/get/responses", "/paths/~1pets~1{id}/get/nothing"],
    });
    expect(Object.fromEntries(places)).toEqual({
      "/paths/~1pets~1{id}/get/responses": { line: 5, column: 18 },
      "/paths/~1pets~1{id}/get/nothing": { line: 5, column: 7 },
    });
  });
});
