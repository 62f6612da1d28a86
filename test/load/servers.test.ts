// Server URLs as a user means them: the first https server wins over an earlier plain-http one, an http-only list is
// refused at start with the two ways out, a relative server URL resolves against the document's URL, and server
// variables take their defaults or the values set on the command line, in settings or per manifest source.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { setUpEngine } from "../../src/app/setup.js";
import { runCli, STACK_LINE } from "../support/cli.js";
import { fixture, loadFixture, toolNamed } from "../support/fixtures.js";
import { type StaticServer, serveDirectory } from "../support/http.js";

function serverUrls(catalog: Catalog): Record<string, string> {
  return Object.fromEntries(catalog.tools.map((t) => [t.name, t.operation.serverUrl]));
}

function problems(catalog: Catalog, code: string): string[] {
  return catalog.diagnostics
    .filter((d) => d.code === code)
    .map((d) => `${d.severity}: ${d.message}${d.pointer !== undefined ? ` (#${d.pointer})` : ""}`);
}

describe("which server a tool calls", () => {
  it("takes the first https server over an earlier http one, a loopback one included", async () => {
    const catalog = await loadFixture("servers/http-first.openapi.yaml");
    expect(serverUrls(catalog)).toEqual({
      searchArticles: "https://api.example.com/v1",
      listFeeds: "https://feeds.example.com",
    });
  });

  it("starts on such a document (no plain-http refusal)", async () => {
    const { code, stdout, stderr } = await runCli([
      "call",
      "test/fixtures/servers/http-first.openapi.yaml",
      "searchArticles",
      "--dry-run",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("GET https://api.example.com/v1/articles");
  });

  it("refuses an http-only list at start, naming --base-url https://… and --allow-insecure-http", async () => {
    const { code, stderr } = await runCli([
      "call",
      "test/fixtures/servers/http-only.openapi.yaml",
      "listThings",
      "--dry-run",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain("http://api.example.com/v1 (the server URL of tool listThings) is plain http");
    expect(stderr).toContain("pass --base-url https://api.example.com/v1");
    expect(stderr).toContain("--allow-insecure-http");
    expect(stderr).not.toMatch(STACK_LINE);
  });
});

describe("a relative server URL", () => {
  let server: StaticServer;
  beforeAll(async () => {
    server = await serveDirectory(fixture("servers"));
  });
  afterAll(() => server.close());

  it("resolves against the URL the document was fetched from", async () => {
    const catalog = await loadCatalog(`${server.url}relative.openapi.yaml`);
    expect(toolNamed(catalog, "listThings").operation.serverUrl).toBe(`${server.url}api/v2`);
  });
});

describe("server variables", () => {
  const SPEC = "servers/variables.openapi.yaml";

  it("take the default, or the first of the enum when there is none", async () => {
    expect(serverUrls(await loadFixture(SPEC))).toEqual({ listThings: "https://eu.api.example.com/v2" });
  });

  it("take the values --server-var sets", async () => {
    const { code, stdout } = await runCli([
      "call",
      `test/fixtures/${SPEC}`,
      "listThings",
      "--dry-run",
      "--server-var",
      "region=us",
      "--server-var",
      "version=v3",
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain("GET https://us.api.example.com/v3/things");
  });

  it("refuse a value outside the enum, naming where it was set and the variable", async () => {
    const catalog = await loadFixture(SPEC, { serverVariables: { region: "mars" } });
    expect(problems(catalog, "server-variable")).toEqual([
      'error: --server-var region=mars: "mars" is not a value server variable {region} allows ("eu", "us") (#/servers/0/variables/region)',
    ]);
    const { code, stderr } = await runCli([
      "call",
      `test/fixtures/${SPEC}`,
      "listThings",
      "--dry-run",
      "--server-var",
      "region=mars",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      '--server-var region=mars: "mars" is not a value server variable {region} allows ("eu", "us")',
    );
  });

  it("warn about a value no server uses", async () => {
    const catalog = await loadFixture(SPEC, { serverVariables: { tenant: "acme" } });
    expect(problems(catalog, "unused-server-variable")).toEqual([
      "warning: --server-var tenant=acme: no server in use has a variable {tenant}; ignored",
    ]);
  });

  it("warn that Swagger 2.0 has none", async () => {
    const catalog = await loadFixture("openapi2/pets.swagger.yaml", { serverVariables: { region: "eu" } });
    expect(problems(catalog, "unused-server-variable")).toEqual([
      "warning: --server-var region=eu: Swagger 2.0 documents have no server variables; {region} is ignored (use --base-url to change the server) (#/swagger)",
    ]);
  });

  it("come from the settings file, under the command line's", async () => {
    const config = fixture("servers/variables.settings.yaml");
    const settingsOnly = await setUpEngine(fixture(SPEC), { config, log: () => {} });
    expect(serverUrls(settingsOnly.catalog)).toEqual({ listThings: "https://us.api.example.com/v3" });
    const both = await setUpEngine(fixture(SPEC), { config, serverVariables: { version: "v4" }, log: () => {} });
    expect(serverUrls(both.catalog)).toEqual({ listThings: "https://us.api.example.com/v4" });
  });

  it("come per source from a manifest", async () => {
    const catalog = await loadFixture("servers/variables.manifest.yaml");
    expect(serverUrls(catalog)).toEqual({
      eu__listThings: "https://eu.api.example.com/v2",
      us__listThings: "https://us.api.example.com/v2",
    });
  });

  it("name the manifest entry when a source's value is outside the enum", async () => {
    const catalog = await loadFixture("servers/bad-variable.manifest.yaml");
    expect(problems(catalog, "server-variable")).toEqual([
      expect.stringMatching(
        /^error: \S*bad-variable\.manifest\.yaml#\/sources\/0\/serverVariables\/region: "mars" is not a value server variable \{region\} allows \("eu", "us"\)/,
      ),
    ]);
  });
});
