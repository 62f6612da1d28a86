// Bad input: a source that cannot be loaded is refused with one UserError naming the file (and the place in it);
// a document that loads but has a broken operation reports it as an error diagnostic naming the JSON pointer.

import { describe, expect, it } from "vitest";
import { isUserError } from "../../src/catalog/errors.js";
import { loadCatalog } from "../../src/load/index.js";
import { errors, fixture, loadFixture, names, rejection } from "../support/fixtures.js";

describe("sources that are refused", () => {
  it.each([
    { given: "bad/malformed.json", code: "E_PARSE", want: [/not valid JSON/] },
    { given: "bad/malformed.yaml", code: "E_PARSE", want: [/not valid YAML/] },
    { given: "bad/does-not-exist.yaml", code: "E_SOURCE", want: [/cannot read: no such file/] },
    { given: "bad/empty.yaml", code: "E_PARSE", want: [/the file is empty/] },
    { given: "bad/comment-only.yaml", code: "E_PARSE", want: [/the file is empty/] },
    {
      given: "bad/openapi-3.2.yaml",
      code: "E_UNSUPPORTED_VERSION",
      want: [/#\/openapi: OpenAPI 3\.2\.0 is not supported/, /Swagger 2\.0, OpenAPI 3\.0\.x and OpenAPI 3\.1\.x/],
    },
    {
      given: "bad/swagger-1.2.json",
      code: "E_UNSUPPORTED_VERSION",
      want: [/#\/swagger: Swagger 1\.2 is not supported/],
    },
    {
      given: "bad/unknown-kind.yaml",
      code: "E_SOURCE_KIND",
      want: [/not an OpenAPI document, action definition or manifest/],
    },
    {
      given: "bad/array.json",
      code: "E_SOURCE_KIND",
      want: [/not an OpenAPI document, action definition or manifest/],
    },
    { given: "bad/alias-bomb.yaml", code: "E_PARSE", want: [/alias/i] },
  ])("refuses $given ($code), naming the file", async ({ given, code, want }) => {
    const file = fixture(given);
    const error = await rejection(loadCatalog(file));
    expect(isUserError(error), String(error.stack)).toBe(true);
    expect(error.code).toBe(code);
    expect(error.message.startsWith(file)).toBe(true);
    for (const pattern of want) expect(error.message).toMatch(pattern);
  });

  it("gives the line and column of a YAML syntax error", async () => {
    const error = await rejection(loadFixture("bad/malformed.yaml"));
    // Line 9 is `     summary: badly indented`, one column left of its siblings.
    expect(error.message).toMatch(/line 9, column \d+/);
  });

  it("gives the line and column of a JSON syntax error", async () => {
    const error = await rejection(loadFixture("bad/malformed.json"));
    // Line 5 lacks a comma between "operationId" and "responses".
    expect(error.message).toMatch(/line 5, column \d+/);
  });

  it("gives the line and column in the file itself when the JSON holds non-ASCII text", async () => {
    // Non-ASCII is parsed through \uXXXX escapes; the position must still be the file's.
    const error = await rejection(loadFixture("bad/malformed-unicode.json"));
    expect(error.message).toMatch(/line 4, column 13: /);
  });

  it("refuses a YAML alias bomb without expanding it", async () => {
    const error = await rejection(loadFixture("bad/alias-bomb.yaml"));
    expect(error.code).toBe("E_PARSE");
    expect(error.message).toMatch(/alias/i);
  });

  it("refuses an unsupported version before reading any external $ref", async () => {
    // The $ref leads out of the directory: were it looked at first, the error would be E_REF_NOT_ALLOWED.
    const error = await rejection(loadFixture("bad/openapi-3.2-with-ref.yaml"));
    expect(error.code).toBe("E_UNSUPPORTED_VERSION");
    expect(error.message).not.toContain("OUTSIDE-MARKER");
  });

  it("refuses a source that is a directory", async () => {
    const dir = fixture("bad");
    const error = await rejection(loadCatalog(dir));
    expect(error.code).toBe("E_SOURCE");
    expect(error.message).toContain(dir);
  });
});

describe("an unresolvable internal $ref", () => {
  it("is an error diagnostic naming the file and the JSON pointer of the $ref, for each one", async () => {
    const file = fixture("bad/unresolved-ref.yaml");
    const catalog = await loadCatalog(file);
    expect(errors(catalog)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: "unresolved-ref",
          file,
          pointer: "/paths/~1pets/get/parameters/0/$ref",
          message: expect.stringContaining("#/components/parameters/pageSize"),
        }),
        expect.objectContaining({
          code: "unresolved-ref",
          file,
          pointer: "/paths/~1pets/get/responses/200/content/application~1json/schema/$ref",
          message: expect.stringContaining("#/components/schemas/Missing"),
        }),
      ]),
    );
    expect(errors(catalog)).toHaveLength(2);
  });

  it("leaves the other operations alone", async () => {
    const catalog = await loadFixture("bad/unresolved-ref.yaml");
    expect(names(catalog)).toEqual(["listPets", "fine"]);
    expect(errors(catalog).every((d) => d.pointer?.startsWith("/paths/~1pets/"))).toBe(true);
  });
});
