// Include/exclude filters wherever a user can write them: the command line of inspect, serve and call (tested with
// the CLI in test/cli/inspect.test.ts and test/generate/parity.test.ts), a settings file, a manifest entry
// (test/load/manifest.test.ts), and `generate`, whose project then holds only the tools that passed.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderProject } from "../../src/generate/render.js";
import { loadCatalog } from "../../src/load/index.js";
import { setUpEngine } from "../../src/app/setup.js";
import { example, names } from "../support/fixtures.js";

const PETSTORE = example("petstore.openapi.yaml");
const ENV = { API_KEY_API_KEY: "key-for-tests" };

function settingsFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "filters-")), "settings.yaml");
  writeFileSync(file, text);
  return file;
}

describe("filters in a settings file (serve and call)", () => {
  const config = settingsFile("include: [tag:pets]\nexclude: [method:DELETE]\n");

  it("keep only the matching tools in the engine's tools/list", async () => {
    const { catalog, engine } = await setUpEngine(PETSTORE, { config, env: ENV, log: () => {} });
    expect(names(catalog)).toEqual(["listPets", "createPet", "getPet"]);
    expect(engine.listTools().map((t) => t.name)).toEqual(["listPets", "createPet", "getPet"]);
  });

  it("a list on the command line replaces the settings file's list of the same kind", async () => {
    const include = await setUpEngine(PETSTORE, { config, include: ["tag:store"], env: ENV, log: () => {} });
    expect(names(include.catalog)).toEqual(["placeOrder"]);
    const exclude = await setUpEngine(PETSTORE, { config, exclude: ["op:getPet"], env: ENV, log: () => {} });
    expect(names(exclude.catalog)).toEqual(["listPets", "createPet", "deletePet"]);
  });

  it("a settings filter that matches nothing is named with the settings file, not the command line", async () => {
    const file = settingsFile("include: [tag:pets, tag:nope]\n");
    const { catalog } = await setUpEngine(PETSTORE, { config: file, env: ENV, log: () => {} });
    expect(catalog.diagnostics.filter((d) => d.code === "filter-unmatched").map((d) => d.message)).toEqual([
      `filter 'tag:nope' (settings file ${file}) matched no operation`,
    ]);
  });
});

describe("filters when generating a project", () => {
  it("the project's catalog, argument types and README hold only the tools that passed", async () => {
    const catalog = await loadCatalog(PETSTORE, { include: ["tag:pets"], exclude: ["op:deletePet"] });
    const files = new Map(renderProject({ catalog }).map((f) => [f.path, f.content]));
    const generated = JSON.parse(files.get("catalog.json") ?? "{}") as { tools: Array<{ name: string }> };
    expect(generated.tools.map((t) => t.name)).toEqual(["listPets", "createPet", "getPet"]);
    const types = files.get("src/tools.ts") ?? "";
    expect(types).toContain("getPet");
    expect(types).not.toContain("deletePet");
    expect(types).not.toContain("placeOrder");
    const readme = files.get("README.md") ?? "";
    expect(readme).toContain("listPets");
    expect(readme).not.toContain("deletePet");
    expect(readme).not.toContain("placeOrder");
  });
});
