// `openapi-mcp validate`, run as the built binary: exit 0 and "valid" for sources that load cleanly, exit 1 with
// each error's place (file:line:column #/pointer) for sources with errors, the official OpenAPI schema's and the
// action-definition schema's violations included; `--strict` fails on warnings too. `serve` stays tolerant.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, STACK_LINE } from "../support/cli.js";
import { escapeRegExp } from "../support/fixtures.js";

describe("validate", () => {
  it.each([
    "examples/petstore.openapi.yaml",
    "examples/widgets.actions.yaml",
    "test/fixtures/openapi2/pets.swagger.yaml",
    "test/fixtures/openapi31/library.openapi.yaml",
    "test/fixtures/actions/placement.actions.yaml",
  ])("exits 0 on %s and says it is valid", async (source) => {
    const { code, stdout, stderr } = await runCli(["validate", source]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${escapeRegExp(source)}: valid(, with \\d+ warnings?)?$`, "m"));
    expect(stdout).not.toContain("TOOL");
  });

  it("exits 0 on a source with warnings only, and counts them", async () => {
    const { code, stdout } = await runCli(["validate", "test/fixtures/openapi30/zoo.openapi.json"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Warnings \(\d+\):$/m);
    expect(stdout).toMatch(/: valid, with \d+ warnings?$/m);
    expect(stdout).toContain("name 'duplicate' is already taken");
  });

  it("exits 0 on a valid manifest", async () => {
    const { code, stdout } = await runCli(["validate", "examples/shop.manifest.yaml"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/shop\.manifest\.yaml: valid/);
  });

  it("exits 1 on a document with errors, naming each pointer, with a one-line summary on stderr", async () => {
    const source = "test/fixtures/bad/unresolved-ref.yaml";
    const { code, stdout, stderr } = await runCli(["validate", source]);
    expect(code).toBe(1);
    expect(stdout).toContain("Errors (2):");
    expect(stdout).toContain(
      `${source}:10:17 #/paths/~1pets/get/parameters/0/$ref: $ref '#/components/parameters/pageSize' does not resolve`,
    );
    expect(stdout).toContain(
      `${source}:12:9 #/paths/~1pets/get/responses/200/content/application~1json/schema/$ref: $ref "#/components/schemas/Missing"`,
    );
    expect(stderr).toBe(`openapi-mcp: ${source}: 2 errors\n`);
    expect(stdout).not.toContain(": valid");
  });

  it("exits 1 on an action definition with an undeclared path placeholder, naming the action's path with its line", async () => {
    const source = "test/fixtures/actions/undeclared-path.actions.yaml";
    const { code, stderr } = await runCli(["validate", source]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${source}:7:11 #/actions/0/path: path placeholder {itemId} has no property in inputSchema`,
    );
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("exits 1 on a manifest mapping auth to a scheme the source does not define", async () => {
    const { code, stderr } = await runCli(["validate", "test/fixtures/manifest/unknown-scheme.manifest.yaml"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^openapi-mcp: test\/fixtures\/manifest\/unknown-scheme\.manifest\.yaml: 1 error$/m);
  });

  it("exits 1 on an OpenAPI document breaking the official schema, each error once with its line and column", async () => {
    const source = "test/fixtures/bad/nonconformant.openapi.yaml";
    const { code, stdout, stderr } = await runCli(["validate", source]);
    expect(code).toBe(1);
    const schema = "does not conform to the OpenAPI 3.0.3 schema";
    expect(errorLines(stdout)).toEqual([
      `${source}:8:7 #/paths/~1pets~1{petId}/get: ${schema}: missing required field 'responses'`,
      `${source}:10:11 #/paths/~1pets~1{petId}/get/parameters/0: ${schema}: missing required field 'required'`,
      `${source}:18:11 #/paths/~1pets/post/parameters/0: ${schema}: missing required field 'schema' or 'content'`,
      `${source}:23:14 #/paths/~1pets/post/bogus: ${schema}: unknown field 'bogus'`,
    ]);
    expect(stderr).toBe(`openapi-mcp: ${source}: 4 errors\n`);
  });

  it("says a Swagger 2.0 parameter's problems for the kind of parameter it is, not for every kind", async () => {
    const source = "test/fixtures/bad/nonconformant.swagger.yaml";
    const { code, stdout } = await runCli(["validate", source]);
    expect(code).toBe(1);
    const schema = "does not conform to the Swagger 2.0 schema";
    expect(errorLines(stdout)).toEqual([
      `${source}:9:7 #/paths/~1pets~1{petId}/get: ${schema}: missing required field 'responses'`,
      `${source}:11:11 #/paths/~1pets~1{petId}/get/parameters/0: ${schema}: missing required field 'required'`,
      `${source}:12:39 #/paths/~1pets~1{petId}/get/parameters/1/type: ${schema}: must be one of: "string", "number", "boolean", "integer", "array"`,
      `${source}:17:72 #/paths/~1pets/post/parameters/0/required: ${schema}: must be boolean`,
    ]);
  });

  it("leaves serve, call and inspect tolerant of the same document", async () => {
    const source = "test/fixtures/bad/nonconformant.openapi.yaml";
    const call = await runCli(["call", source, "getPet", "--args", '{"petId": "7"}', "--dry-run"]);
    expect(call.stderr).toBe("");
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("GET https://api.example.com/pets/7");
    const inspect = await runCli(["inspect", source]);
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).not.toContain("does not conform");
  });

  it("exits 1 on an unknown JSON Schema type in an action definition, naming its line and column", async () => {
    const source = "test/fixtures/actions/unknown-type.actions.yaml";
    const { code, stdout, stderr } = await runCli(["validate", source]);
    expect(code).toBe(1);
    expect(stdout).not.toContain(": valid");
    expect(stderr).toContain(
      `${source}:11:24 #/actions/0/inputSchema/properties/limit/type: must be one of: "array", "boolean", "integer", "null", "number", "object", "string"`,
    );
  });

  it("--strict exits 1 on warnings too, and 0 on a source without any", async () => {
    const warned = await runCli(["validate", "--strict", "test/fixtures/openapi30/zoo.openapi.json"]);
    expect(warned.code).toBe(1);
    expect(warned.stdout).toMatch(/^Warnings \(\d+\):$/m);
    expect(warned.stderr).toMatch(
      /^openapi-mcp: test\/fixtures\/openapi30\/zoo\.openapi\.json: \d+ warnings \(--strict\)\n$/,
    );
    const clean = await runCli(["validate", "--strict", "test/fixtures/openapi31/library.openapi.yaml"]);
    expect(clean.stderr).toBe("");
    expect(clean.code).toBe(0);
  });

  it("shows ten errors of a kind and counts the rest, while the exit code and summary count them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "validate-many-"));
    try {
      const paths = Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [`/things${i}`, { get: { operationId: `get${i}`, summary: "s" } }]),
      );
      const source = join(dir, "many.openapi.json");
      writeFileSync(
        source,
        JSON.stringify(
          {
            openapi: "3.0.3",
            info: { title: "Many", version: "1" },
            servers: [{ url: "https://api.example.com" }],
            paths,
          },
          null,
          2,
        ),
      );
      const { code, stdout, stderr } = await runCli(["validate", source]);
      expect(code).toBe(1);
      expect(stdout).toContain("Errors (30):");
      expect(errorLines(stdout)).toHaveLength(10);
      expect(stdout).toContain("… and 20 more like these (openapi-schema/required)");
      expect(stderr).toBe(`openapi-mcp: ${source}: 30 errors\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The lines of the Errors section that name a place (`file:line:col #/pointer: …`). */
function errorLines(stdout: string): string[] {
  const section = stdout.split(/^Errors \(\d+\):$/m)[1]?.split(/^Warnings/m)[0] ?? "";
  return section
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^\S+:\d+:\d+ #/.test(line));
}
