// `openapi-mcp validate`, run as the built binary: exit 0 and "valid" for sources that load cleanly, exit 1 with
// each error's place for sources with errors.

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
    expect(stdout).toContain(`${source}#/paths/~1pets/get/parameters/0/$ref`);
    expect(stdout).toContain(`${source}#/paths/~1pets/get/responses/200/content/application~1json/schema/$ref`);
    expect(stderr).toBe(`openapi-mcp: ${source}: 2 errors\n`);
    expect(stdout).not.toContain(": valid");
  });

  it("exits 1 on an action definition with an undeclared path placeholder, naming the action's path", async () => {
    const source = "test/fixtures/actions/undeclared-path.actions.yaml";
    const { code, stdout, stderr } = await runCli(["validate", source]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `[get_item] path placeholder {itemId} has no property in inputSchema (${source}#/actions/0/path)`,
    );
    expect(stderr).toBe(`openapi-mcp: ${source}: 1 error\n`);
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("exits 1 on a manifest mapping auth to a scheme the source does not define", async () => {
    const { code, stderr } = await runCli(["validate", "test/fixtures/manifest/unknown-scheme.manifest.yaml"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^openapi-mcp: test\/fixtures\/manifest\/unknown-scheme\.manifest\.yaml: 1 error$/m);
  });
});
