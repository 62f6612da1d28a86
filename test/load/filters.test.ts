// Include/exclude filters as loadCatalog (and the command line) take them: tag:NAME, op:OPERATION_ID, path:GLOB,
// method:VERB. A tool is kept when no include is given or one matches, and no exclude matches.

import { describe, expect, it } from "vitest";
import { loadFixture, names, rejection } from "../support/fixtures.js";

const SPEC = "openapi30/zoo.openapi.json";
const ANIMAL_ITEM = ["getAnimal", "replaceAnimal", "deleteAnimal", "animalOptions", "animalExists", "patchAnimal"];

describe("filters", () => {
  it.each([
    {
      include: ["tag:animals"],
      exclude: [],
      want: ["listAnimals", "createAnimal", "getAnimal", "replaceAnimal", "deleteAnimal"],
    },
    { include: ["tag:ANIMALS"], exclude: ["method:get"], want: ["createAnimal", "replaceAnimal", "deleteAnimal"] },
    { include: ["op:getTree", "op:countAnimals"], exclude: [], want: ["getTree", "countAnimals"] },
    // op: also matches a derived name, for operations without an operationId.
    { include: ["op:get_animals_animalId_toys"], exclude: [], want: ["get_animals_animalId_toys"] },
    // `*` stays within one segment; braces are literal, so the template itself can be named.
    { include: ["path:/animals/*"], exclude: [], want: ANIMAL_ITEM },
    {
      include: ["path:/animals/{animalId}"],
      exclude: ["method:HEAD", "method:OPTIONS"],
      want: ["getAnimal", "replaceAnimal", "deleteAnimal", "patchAnimal"],
    },
    { include: ["path:/animals/**"], exclude: [], want: [...ANIMAL_ITEM, "get_animals_animalId_toys"] },
    { include: ["path:/dup/?"], exclude: [], want: ["duplicate", expect.stringMatching(/^duplicate_/)] },
    { include: ["method:DELETE"], exclude: [], want: ["deleteAnimal"] },
    {
      include: ["method:post", "method:put"],
      exclude: ["tag:animals", "op:addContact"],
      want: ["createAccount", "adoptPet", "recordMeasurement"],
    },
  ])("include $include, exclude $exclude", async ({ include, exclude, want }) => {
    const catalog = await loadFixture(SPEC, { include, exclude });
    expect(names(catalog)).toEqual(want);
    expect(catalog.diagnostics.filter((d) => d.code === "filter-unmatched")).toEqual([]);
  });

  it("excludes from everything when no include is given", async () => {
    const all = await loadFixture(SPEC);
    const catalog = await loadFixture(SPEC, { exclude: ["tag:animals", "path:/dup/*"] });
    expect(names(catalog)).toEqual(
      names(all).filter(
        (n) =>
          !["listAnimals", "createAnimal", "getAnimal", "replaceAnimal", "deleteAnimal"].includes(n) &&
          !n.startsWith("duplicate"),
      ),
    );
  });

  it("warns about a filter that matched nothing, naming it", async () => {
    const catalog = await loadFixture(SPEC, { include: ["tag:animals", "tag:nope"] });
    expect(catalog.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "warning",
        code: "filter-unmatched",
        message: expect.stringContaining("'tag:nope'"),
      }),
    );
  });

  it.each(["color:red", "tag:", "nocolon", "method"])("refuses the malformed filter %j, naming it", async (filter) => {
    const error = await rejection(loadFixture(SPEC, { include: [filter] }));
    expect(error.code).toBe("E_FILTER");
    expect(error.message).toContain(`'${filter}' is not a filter`);
    expect(error.message).toContain("tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB");
  });

  it("applies to action definitions by tag, name, path and method too", async () => {
    const byTag = await loadFixture("actions/placement.actions.yaml", { include: ["tag:write"] });
    expect(names(byTag)).toEqual(["create_note"]);
    const byPath = await loadFixture("actions/placement.actions.yaml", {
      include: ["path:/notes/*"],
      exclude: ["method:HEAD", "op:note_options"],
    });
    expect(names(byPath)).toEqual(["replace_note", "patch_note", "delete_note"]);
  });
});
