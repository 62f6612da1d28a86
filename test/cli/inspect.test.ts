// `openapi-mcp inspect`, run as the built binary: the tools table and totals, the --json report, and the source
// options (filters, --base-url, --allow-ref, URL sources, manifests from another working directory).

import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GITHUB_SPEC } from "../../bench/corpus-check.mjs";
import { Listing } from "../../src/catalog/listing.js";
import type { InspectReport } from "../../src/inspect/report.js";
import { loadCatalog } from "../../src/load/index.js";
import { runCli, STACK_LINE } from "../support/cli.js";
import { fixture } from "../support/fixtures.js";
import { type StaticServer, serveDirectory } from "../support/http.js";

const ZOO = "test/fixtures/openapi30/zoo.openapi.json";
const PETSTORE = "examples/petstore.openapi.yaml";

describe("inspect", () => {
  it("prints the source, a table of tools with method, path, class and tokens, and the totals", async () => {
    const { code, stdout, stderr } = await runCli(["inspect", PETSTORE]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const lines = stdout.split("\n");
    expect(lines[0]).toBe(`Petstore 1.0.0 (OpenAPI 3.0.3, ${PETSTORE})`);
    expect(lines).toContainEqual(expect.stringMatching(/^\s+TOOL\s+METHOD\s+PATH\s+CLASS\s+TOKENS$/));
    for (const [tool, method, path, effect] of [
      ["listPets", "GET", "/pets", "read"],
      ["createPet", "POST", "/pets", "write"],
      ["getPet", "GET", "/pets/{petId}", "read"],
      ["deletePet", "DELETE", "/pets/{petId}", "destructive"],
      ["placeOrder", "POST", "/store/orders", "write"],
    ]) {
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^\\s+${tool}\\s+${method}\\s+${path!.replace(/[{}]/g, "\\$&")}\\s+${effect}\\s+\\d[\\d,]*$`),
        ),
      );
    }
    expect(stdout).toMatch(/^5 tools · tools\/list [\d,]+ bytes ≈ [\d,]+ tokens$/m);
    expect(stdout).toContain("api_key: API key in header X-API-Key ← $API_KEY_API_KEY (4 tools)");
  });

  it("--json reports every tool with method, path, effect and tokens, and totals that match tools/list", async () => {
    const { code, stdout } = await runCli(["inspect", ZOO, "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as InspectReport;
    expect(report.tools).toHaveLength(19);
    expect(report.tools.find((t) => t.name === "deleteAnimal")).toMatchObject({
      method: "DELETE",
      path: "/animals/{animalId}",
      effect: "destructive",
      approval: false,
    });
    for (const tool of report.tools) {
      expect(tool).toEqual(
        expect.objectContaining({
          name: expect.any(String),
          method: expect.any(String),
          path: expect.any(String),
          effect: expect.any(String),
        }),
      );
      expect(tool.tokens).toBe(Math.ceil(tool.bytes / 4));
    }
    const catalog = await loadCatalog(ZOO);
    const listing = new Listing(catalog);
    const bytes = Buffer.byteLength(JSON.stringify({ tools: catalog.tools.map((t) => listing.entry(t)) }));
    expect(report.totals).toEqual({ tools: 19, bytes, tokens: Math.ceil(bytes / 4) });
    expect(report.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(["name-shortened", "duplicate-name"]));
    expect(report.errors).toEqual([]);
  });

  it("names the largest tools and tags and, over the context budget, says what to do next", async () => {
    const { code, stdout } = await runCli(["inspect", GITHUB_SPEC]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Largest tools: [\w.-]+ ≈ [\d,]+( · [\w.-]+ ≈ [\d,]+){4}$/m);
    expect(stdout).toMatch(/^Largest tags: repos ≈ [\d,]+ \(\d+\) · /m);
    expect(stdout).toMatch(
      /^Context budget: tools\/list costs ≈ [\d,]+ tokens for 1,\d{3} tools, over the 20,000-token budget: serve with --mode dynamic .*, or keep only what the agent needs, e\.g\. --include tag:[\w.-]+ \(\d+ tools, ≈ [\d,]+ tokens\)\.$/m,
    );

    const report = JSON.parse((await runCli(["inspect", GITHUB_SPEC, "--json"])).stdout) as InspectReport;
    expect(report.budget).toMatchObject({
      threshold: 20_000,
      tokens: report.totals.tokens,
      over: true,
      advice: expect.stringContaining("--mode dynamic"),
    });
    const costliest = report.tools
      .map((t) => t.tokens)
      .sort((a, b) => b - a)
      .slice(0, 5);
    expect(report.budget.largestTools.map((t) => t.tokens)).toEqual(costliest);
    for (const { name, tokens } of report.budget.largestTools)
      expect(report.tools.find((t) => t.name === name)?.tokens).toBe(tokens);
    // The tag the advice suggests fits the budget on its own.
    const tag = /--include tag:([\w.-]+)/.exec(report.budget.advice!)![1]!;
    expect(report.tools.filter((t) => t.tags.includes(tag)).reduce((sum, t) => sum + t.tokens, 0)).toBeLessThanOrEqual(
      20_000,
    );
  });

  it("within the budget, gives no advice", async () => {
    const text = await runCli(["inspect", PETSTORE]);
    expect(text.stdout).not.toContain("Context budget");
    const report = JSON.parse((await runCli(["inspect", PETSTORE, "--json"])).stdout) as InspectReport;
    expect(report.budget).toMatchObject({ over: false, tokens: report.totals.tokens });
    expect(report.budget.advice).toBeUndefined();
  });

  it("--json lists credentials with the variables they read", async () => {
    const { stdout } = await runCli(["inspect", "test/fixtures/openapi2/pets.swagger.yaml", "--json"]);
    const report = JSON.parse(stdout) as InspectReport;
    expect(report.credentials).toContainEqual(
      expect.objectContaining({
        id: "petstore_oauth",
        type: "oauth2",
        variables: ["OAUTH_CLIENT_ID_PETSTORE_OAUTH", "OAUTH_CLIENT_SECRET_PETSTORE_OAUTH"],
        usedBy: 1,
      }),
    );
  });

  it("applies repeatable --include and --exclude filters", async () => {
    const { code, stdout } = await runCli([
      "inspect",
      ZOO,
      "--json",
      "--include",
      "tag:animals",
      "--include",
      "op:getTree",
      "--exclude",
      "method:DELETE",
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as InspectReport).tools.map((t) => t.name)).toEqual([
      "listAnimals",
      "createAnimal",
      "getAnimal",
      "replaceAnimal",
      "getTree",
    ]);
  });

  it("uses --base-url instead of the document's servers", async () => {
    const { stdout } = await runCli(["inspect", PETSTORE, "--json", "--base-url", "https://staging.example.com/v9/"]);
    const report = JSON.parse(stdout) as InspectReport;
    expect(new Set(report.tools.map((t) => t.serverUrl))).toEqual(new Set(["https://staging.example.com/v9"]));
  });

  it("reads a manifest's sources relative to the manifest, from any working directory", async () => {
    const env = { FLEET_CARS_URL: "https://cars.internal.example.com" };
    const { code, stdout, stderr } = await runCli(["inspect", fixture("manifest/fleet.manifest.yaml")], {
      cwd: tmpdir(),
      env,
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\s+cars__search_cars\s+GET\s+\/cars\s+read/m);
    expect(stdout).toMatch(/^\s+notes__list_notes\s+GET\s+/m);
    expect(stdout).toMatch(/^7 tools · /m);

    const relative = await runCli(["inspect", "../fleet.manifest.yaml", "--json"], {
      cwd: fixture("manifest/apis"),
      env,
    });
    expect(relative.code).toBe(0);
    expect((JSON.parse(relative.stdout) as InspectReport).tools.map((t) => t.name)).toContain("trucks__listTrucks");
  });

  it("lets --allow-ref open a sibling directory", async () => {
    const refused = await runCli(["inspect", "test/fixtures/refs/allowed/spec.yaml"]);
    expect(refused.code).toBe(1);
    const allowed = await runCli([
      "inspect",
      "test/fixtures/refs/allowed/spec.yaml",
      "--allow-ref",
      "test/fixtures/refs/shared",
    ]);
    expect(allowed.stderr).toBe("");
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^\s+listOrders\s+GET\s+\/orders\s+read/m);
  });

  describe("a source on http://127.0.0.1", () => {
    let server: StaticServer;
    beforeAll(async () => {
      server = await serveDirectory(fixture("openapi30"));
    });
    afterAll(() => server.close());

    it("is fetched and inspected", async () => {
      const { code, stdout, stderr } = await runCli(["inspect", `${server.url}zoo.openapi.json`]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toMatch(/^19 tools · /m);
      expect(server.requests).toContain("/zoo.openapi.json");
    });

    it("that does not exist is one clear error naming the URL and status", async () => {
      const { code, stderr } = await runCli(["inspect", `${server.url}nope.yaml`]);
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`^openapi-mcp: .*${server.url}nope\\.yaml.*404`));
      expect(stderr).not.toMatch(STACK_LINE);
    });
  });

  it("exits 1 when the catalog has errors, listing them with their pointers", async () => {
    const { code, stdout } = await runCli(["inspect", "test/fixtures/bad/unresolved-ref.yaml"]);
    expect(code).toBe(1);
    expect(stdout).toContain("Errors (2):");
    expect(stdout).toContain(
      "test/fixtures/bad/unresolved-ref.yaml#/paths/~1pets/get/responses/200/content/application~1json/schema/$ref",
    );
  });
});

describe("text from the spec on the terminal", () => {
  it("keeps each item on its line: line breaks and control characters in titles, paths and scheme names show as escapes", async () => {
    const { code, stdout } = await runCli(["inspect", "test/fixtures/generate/hostile.openapi.yaml"]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/^RUN rm/m);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u2028\u2029]/);
    expect(stdout).toMatch(/^Hostile .*\\nRUN rm -rf \/.*\(OpenAPI 3\.0\.3, /m);
  });
});
