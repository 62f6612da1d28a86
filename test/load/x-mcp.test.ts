// The `x-mcp` extension: the spec's author leaves operations out (on the document, a path item or an operation;
// the nearest level that says so wins) and names, describes and classes a tool. Swagger 2.0, OpenAPI 3.0 and 3.1
// documents of the same API give the same tools. Filters narrow what x-mcp keeps and never bring anything back.

import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { inspectCatalog } from "../../src/inspect/report.js";
import { DEFAULT_POLICIES, decide, parsePolicies } from "../../src/runtime/approvals/policy.js";
import { errors, fixture, listed, loadFixture, names, toolNamed } from "../support/fixtures.js";

const VERSIONS = [
  { version: "Swagger 2.0", garden: "x-mcp/garden.swagger2.yaml", curated: "x-mcp/curated.swagger2.yaml" },
  { version: "OpenAPI 3.0", garden: "x-mcp/garden.openapi30.yaml", curated: "x-mcp/curated.openapi30.yaml" },
  { version: "OpenAPI 3.1", garden: "x-mcp/garden.openapi31.yaml", curated: "x-mcp/curated.openapi31.yaml" },
];
const GARDEN_TOOLS = ["listPlants", "plant_add", "getPlant", "searchPlants", "prunePlant", "removeLabel", "health"];

describe.each(VERSIONS)("x-mcp in $version", ({ garden, curated }) => {
  it("leaves out operations and path items marked false; an operation's x-mcp beats its path item's", async () => {
    const catalog = await loadFixture(garden);
    // deletePlant (operation), adminReport and adminReset (path item) are left out; health is kept by its own x-mcp.
    expect(names(catalog)).toEqual(GARDEN_TOOLS);
    // The left-out path's broken $ref is never read, so nothing stops the server.
    expect(catalog.diagnostics).toEqual([]);
  });

  it("on the document: only what a path item or operation keeps is served", async () => {
    const catalog = await loadFixture(curated);
    // addBook's x-mcp names it but says nothing about exclusion, so the document's exclude applies.
    expect(names(catalog)).toEqual(["listBooks", "getBook"]);
    expect(catalog.diagnostics).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "x-mcp-misplaced",
        pointer: "/x-mcp/description",
        file: fixture(curated),
      }),
    ]);
    expect(catalog.diagnostics[0]?.message).toBe(
      "x-mcp description applies to one operation, not to a whole document; ignored",
    );
  });

  it("overrides name, title and description in the tools/list entry", async () => {
    const catalog = await loadFixture(garden);
    const entry = listed(catalog, "plant_add");
    expect(entry).toMatchObject({
      name: "plant_add",
      title: "Add a plant",
      description: "Add a plant to the garden; give its species.",
    });
    expect(toolNamed(catalog, "plant_add").annotations.title).toBe("Add a plant");
    expect(Object.keys(entry.inputSchema.properties as object)).toEqual(["body"]);
    // The operationId stays known: inspect shows it and op: filters match it.
    expect(inspectCatalog(catalog).tools.find((t) => t.name === "plant_add")?.operationId).toBe("createPlant");
  });

  it("effect and the class hints change the class, which the annotations and the policy follow", async () => {
    const catalog = await loadFixture(garden);
    const search = listed(catalog, "searchPlants").annotations;
    expect(toolNamed(catalog, "searchPlants").effect).toBe("read");
    expect(search).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });

    const prune = toolNamed(catalog, "prunePlant");
    expect(prune.effect).toBe("destructive");
    expect(prune.annotations).toEqual({
      title: "Prune (cuts branches)",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(prune.title).toBe("Prune a plant");
    expect(listed(catalog, "prunePlant").annotations.title).toBe("Prune (cuts branches)");

    const label = toolNamed(catalog, "removeLabel");
    expect(label.effect).toBe("write");
    expect(label.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });

    const report = inspectCatalog(catalog).tools;
    expect(report.map((t) => [t.name, t.effect, t.approval])).toEqual([
      ["listPlants", "read", false],
      ["plant_add", "write", false],
      ["getPlant", "read", false],
      ["searchPlants", "read", false],
      ["prunePlant", "destructive", true],
      ["removeLabel", "write", false],
      ["health", "read", false],
    ]);
    // Default policy: destructive asks first, so the POST now does and the DELETE marked harmless does not.
    expect(decide(prune, DEFAULT_POLICIES)).toBe("approve");
    expect(decide(label, DEFAULT_POLICIES)).toBe("allow");
    // Policies per class apply to the new class; `approval: true` is not lifted by a policy naming the tool.
    const policies = parsePolicies(["read=deny", "prunePlant=allow"], names(catalog));
    expect(decide(toolNamed(catalog, "searchPlants"), policies)).toBe("deny");
    expect(decide(prune, policies)).toBe("approve");
  });

  it("applies x-mcp before filters: an include never brings back what x-mcp leaves out, and says so", async () => {
    const catalog = await loadFixture(garden, { include: ["tag:admin"] });
    expect(names(catalog)).toEqual(["health"]);
    const warnings = catalog.diagnostics.filter((d) => d.code === "x-mcp-excluded");
    expect(warnings.map((d) => [d.pointer, d.message])).toEqual([
      [
        "/paths/~1admin/x-mcp",
        "GET /admin matches filter 'tag:admin' (command line), but the document leaves it out with x-mcp; filters do not bring it back",
      ],
      [
        "/paths/~1admin/x-mcp",
        "POST /admin matches filter 'tag:admin' (command line), but the document leaves it out with x-mcp; filters do not bring it back",
      ],
    ]);
    expect(catalog.diagnostics.filter((d) => d.code === "filter-unmatched")).toEqual([]);

    const byName = await loadFixture(garden, { include: ["op:deletePlant"] });
    expect(names(byName)).toEqual([]);
    expect(byName.diagnostics).toEqual([
      expect.objectContaining({ code: "x-mcp-excluded", pointer: "/paths/~1plants~1{plantId}/delete/x-mcp" }),
    ]);
  });

  it("op: filters match a tool by its new name and by its operationId", async () => {
    expect(names(await loadFixture(garden, { include: ["op:plant_add", "op:prunePlant"] }))).toEqual([
      "plant_add",
      "prunePlant",
    ]);
    expect(names(await loadFixture(garden, { include: ["op:createPlant"] }))).toEqual(["plant_add"]);
    expect(
      names(await loadFixture(garden, { include: ["tag:plants"], exclude: ["op:plant_add", "method:GET"] })),
    ).toEqual(["searchPlants"]);
  });
});

describe("x-mcp in a manifest", () => {
  it("a chosen name is namespaced; the source's filters narrow what x-mcp keeps", async () => {
    const catalog = await loadFixture("x-mcp/garden.manifest.yaml");
    expect(names(catalog)).toEqual([
      "garden__plant_add",
      "garden__getPlant",
      "garden__health",
      "library__listBooks",
      "library__getBook",
    ]);
    expect(catalog.diagnostics.filter((d) => d.code === "x-mcp-excluded").map((d) => d.message)).toEqual([
      "POST /admin matches filter 'op:adminReset' (source 'garden'), but the document leaves it out with x-mcp; filters do not bring it back",
    ]);
    expect(catalog.diagnostics.filter((d) => d.code === "filter-unmatched")).toEqual([]);
  });
});

describe("x-mcp values of the wrong shape", () => {
  const BAD = "x-mcp/bad.openapi30.yaml";

  it("are errors naming the file and pointer (misplaced fields are warnings), and loading goes on", async () => {
    const catalog = await loadFixture(BAD);
    const found = catalog.diagnostics.map((d) => [d.severity, d.pointer, d.message]);
    expect(found).toEqual([
      ["warning", "/x-mcp/name", "x-mcp name applies to one operation, not to a whole document; ignored"],
      [
        "warning",
        "/paths/x-mcp",
        "x-mcp is read on the document, a path item or an operation, not on the paths object; ignored",
      ],
      ["warning", "/paths/~1a/x-mcp/title", "x-mcp title applies to one operation, not to a whole path item; ignored"],
      ["error", "/paths/~1a/x-mcp/exclude", 'x-mcp exclude must be true or false, not "no"; ignored'],
      ["error", "/paths/~1a/get/x-mcp", 'x-mcp must be true, false or an object, not "yes"; ignored'],
      [
        "error",
        "/paths/~1b/get/x-mcp/name",
        `x-mcp name must be a tool name of 1 to 64 letters, digits, '_', '.' or '-', not "bad name!"; ignored`,
      ],
      [
        "error",
        "/paths/~1b/put/x-mcp/name",
        expect.stringMatching(
          /^x-mcp name must be a tool name of 1 to 64 letters, digits, '_', '\.' or '-', not "n{38}…; ignored$/,
        ),
      ],
      [
        "error",
        "/paths/~1b/post/x-mcp/readOnly",
        "x-mcp has no field 'readOnly'; it takes exclude, name, title, description, effect, annotations, approval",
      ],
      [
        "error",
        "/paths/~1b/delete/x-mcp/effect",
        'x-mcp effect must be read, write or destructive, not "delete"; ignored',
      ],
      ["error", "/paths/~1b/delete/x-mcp/approval", 'x-mcp approval must be true or false, not "yes"; ignored'],
      [
        "error",
        "/paths/~1b/delete/x-mcp/description",
        'x-mcp description must be a non-empty string, not " "; ignored',
      ],
      [
        "error",
        "/paths/~1b/delete/x-mcp/annotations/readOnlyHint",
        'x-mcp annotations readOnlyHint must be true or false, not "true"; ignored',
      ],
      [
        "error",
        "/paths/~1b/delete/x-mcp/annotations/hint",
        "x-mcp annotations have no field 'hint'; they take title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
      ],
      ["error", "/paths/~1c/get/x-mcp/annotations", "x-mcp annotations must be an object, not []; ignored"],
      [
        "error",
        "/paths/~1c/put/x-mcp/annotations/destructiveHint",
        "x-mcp annotations destructiveHint: true contradicts effect: read; the hint is ignored",
      ],
      [
        "error",
        "/paths/~1c/post/x-mcp/annotations",
        "x-mcp annotations: readOnlyHint and destructiveHint cannot both be true; both ignored",
      ],
      [
        "error",
        "/paths/~1d/put/x-mcp/name",
        "x-mcp name 'listThings' is the name of another tool too; tool names must be unique, so this operation keeps its own name",
      ],
      [
        "error",
        "/paths/~1d/post/x-mcp/name",
        "x-mcp name 'shared' is the name of another tool too; tool names must be unique, so this operation keeps its own name",
      ],
    ]);
    expect(new Set(catalog.diagnostics.map((d) => d.file))).toEqual(new Set([fixture(BAD)]));
    // Tools (and problems) come in path order, and within a path in the order get, put, post, delete.
    expect(names(catalog)).toEqual([
      "wordy",
      "spaced",
      "longName",
      "typo",
      "wrongTypes",
      "notObject",
      "against",
      "both",
      "shared",
      "third",
      "second",
      "listThings",
    ]);
    // What was ignored leaves the method's class.
    expect(["wrongTypes", "both", "against"].map((name) => toolNamed(catalog, name).effect)).toEqual([
      "destructive",
      "write",
      "read",
    ]);
  });

  it("stop serve, inspect and generate like any other error in the source", async () => {
    expect(inspectCatalog(await loadFixture(BAD)).errors.length).toBe(15);
    expect(errors(await loadFixture("x-mcp/garden.openapi30.yaml"))).toEqual([]);
  });

  it("the published schema accepts and refuses the same values as the loader", async () => {
    const schema = JSON.parse(readFileSync(new URL("../../schemas/x-mcp.schema.json", import.meta.url), "utf8"));
    const validate = new Ajv2020({ strict: true }).compile(schema);
    const good = [
      true,
      false,
      { exclude: true },
      {
        name: "a.b-c_1",
        title: "T",
        description: "D",
        effect: "read",
        approval: true,
        annotations: { title: "t", readOnlyHint: true, idempotentHint: false, openWorldHint: false },
      },
    ];
    const bad = [
      "yes",
      { exclude: "no" },
      { name: "bad name!" },
      { name: "n".repeat(65) },
      { readOnly: true },
      { effect: "delete" },
      { description: " " },
      { annotations: [] },
      { annotations: { hint: 1 } },
      { annotations: { readOnlyHint: "true" } },
    ];
    for (const value of good) expect(validate(value), JSON.stringify(value)).toBe(true);
    for (const value of bad) expect(validate(value), JSON.stringify(value)).toBe(false);
  });
});
