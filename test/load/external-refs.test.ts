// External $refs: files beside a local spec are read; anything else (a parent directory, an absolute path, a file:
// URL, a symlink out of the directory) is refused before it is read, naming the $ref and where it is. A spec fetched
// from a URL never reads local files or other URLs unless the user allows a URL prefix.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isUserError } from "../../src/catalog/errors.js";
import { loadCatalog } from "../../src/load/index.js";
import { fixture, loadFixture, rejection, schemaProblems, toolNamed } from "../support/fixtures.js";
import { type StaticServer, serveDirectory } from "../support/http.js";

const MARKER = "OUTSIDE-MARKER-7d1f";

describe("external $refs of a local spec", () => {
  it("resolves files in the spec's directory and below, including refs between those files", async () => {
    const catalog = await loadFixture("refs/local/spec.yaml");
    const tool = toolNamed(catalog, "getPet");
    expect(tool.inputSchema.properties).toEqual({
      petId: { type: "integer", minimum: 1, description: "The pet's id (from an external file)." },
    });
    expect(tool.outputSchema).toMatchObject({
      type: "object",
      description: "A pet, defined in schemas/pet.yaml.",
      properties: {
        name: { type: "string" },
        tag: {
          type: "object",
          description: "A tag, defined in schemas/tag.yaml and referred to from pet.yaml.",
          properties: { label: { enum: ["cute", "loud"] } },
        },
      },
    });
    expect(catalog.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(schemaProblems(catalog)).toEqual([]);
  });

  it("refuses a $ref to the parent directory without reading it, naming the $ref and its JSON pointer", async () => {
    const spec = fixture("refs/escape/parent.yaml");
    const error = await rejection(loadCatalog(spec));
    expect(isUserError(error)).toBe(true);
    expect(error.code).toBe("E_REF_NOT_ALLOWED");
    expect(error.message).toContain(spec);
    expect(error.message).toContain(
      "#/paths/~1things/get/responses/200/content/application~1json/schema: $ref '../outside.yaml'",
    );
    expect(error.message).toContain("--allow-ref");
    expect(error.message).not.toContain(MARKER);
  });

  it("refuses an absolute path and a file: URL, listing both", async () => {
    const error = await rejection(loadFixture("refs/escape/absolute.yaml"));
    expect(error.code).toBe("E_REF_NOT_ALLOWED");
    expect(error.message).toContain(
      "#/paths/~1host/get/responses/200/content/text~1plain/schema: $ref '/etc/hostname'",
    );
    expect(error.message).toContain("#/paths/~1host/get/parameters/0: $ref 'file:///etc/passwd'");
    expect(error.message).not.toMatch(/root:x:0:0/);
  });

  it("lets a sibling directory through only when allowRefs names it", async () => {
    const refused = await rejection(loadFixture("refs/allowed/spec.yaml"));
    expect(refused.code).toBe("E_REF_NOT_ALLOWED");
    expect(refused.message).toContain("$ref '../shared/common.yaml#/Order'");

    const catalog = await loadFixture("refs/allowed/spec.yaml", { allowRefs: [fixture("refs/shared")] });
    expect(toolNamed(catalog, "listOrders").outputSchema).toMatchObject({
      type: "object",
      description: "An order, from the shared directory.",
      required: ["id"],
      properties: { total: { type: "number", minimum: 0 } },
    });
  });

  describe("a symlink in the spec's directory that leads outside it", () => {
    let dir: string;
    beforeAll(() => {
      // <dir>/secret.yaml is outside <dir>/spec/, which holds the spec and link.yaml → ../secret.yaml.
      dir = mkdtempSync(join(tmpdir(), "openapi-mcp-refs-"));
      mkdirSync(join(dir, "spec"));
      writeFileSync(join(dir, "secret.yaml"), `type: object\ndescription: ${MARKER}\n`);
      symlinkSync(join(dir, "secret.yaml"), join(dir, "spec", "link.yaml"));
      writeFileSync(
        join(dir, "spec", "openapi.yaml"),
        `openapi: 3.0.3
info: { title: Symlink, version: 1.0.0 }
paths:
  /x:
    get:
      operationId: getX
      summary: X
      responses:
        "200":
          description: X.
          content:
            application/json:
              schema: { $ref: "./link.yaml" }
`,
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("is refused: the real path is what counts", async () => {
      const error = await rejection(loadCatalog(join(dir, "spec", "openapi.yaml")));
      expect(error.code).toBe("E_REF_NOT_ALLOWED");
      expect(error.message).toContain("$ref './link.yaml'");
      expect(error.message).not.toContain(MARKER);
    });
  });
});

describe("external $refs of a spec fetched from a URL", () => {
  let server: StaticServer;
  beforeAll(async () => {
    server = await serveDirectory(fixture("refs/remote"));
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  afterAll(() => server.close());

  it("refuses a relative $ref by default and fetches nothing but the spec", async () => {
    const url = `${server.url}spec.yaml`;
    const error = await rejection(loadCatalog(url));
    expect(error.code).toBe("E_REF_NOT_ALLOWED");
    expect(error.message).toContain(url);
    expect(error.message).toContain(
      "#/paths/~1pets/get/responses/200/content/application~1json/schema: $ref './schemas/pet.yaml'",
    );
    expect(server.requests).toEqual(["/spec.yaml"]);
  });

  it("never reads local files, even when allowRefs names a local directory", async () => {
    const error = await rejection(
      loadCatalog(`${server.url}absolute.yaml`, { allowRefs: ["/etc", fixture("refs/remote")] }),
    );
    expect(error.code).toBe("E_REF_NOT_ALLOWED");
    expect(error.message).toContain("$ref 'file:///etc/hostname'");
    expect(error.message).toContain("$ref '/etc/hostname'");
    expect(server.requests).toEqual(["/absolute.yaml"]);
  });

  it("resolves a relative $ref when its URL prefix is allowed", async () => {
    const catalog = await loadCatalog(`${server.url}spec.yaml`, { allowRefs: [server.url] });
    const tool = toolNamed(catalog, "listRemotePets");
    expect(tool.outputSchema).toEqual({
      type: "object",
      description: "A pet, served beside the remote spec.",
      properties: { name: { type: "string" } },
    });
    expect(server.requests).toEqual(["/spec.yaml", "/schemas/pet.yaml"]);
  });

  it("resolves a relative server URL against the spec's URL, port included", async () => {
    const catalog = await loadCatalog(`${server.url}plain.yaml`);
    expect(toolNamed(catalog, "listPlainPets").operation.serverUrl).toBe(`${server.url}api`);
  });

  it("resolves a relative server URL against the spec's URL, port included, when external refs are bundled", async () => {
    const catalog = await loadCatalog(`${server.url}spec.yaml`, { allowRefs: [server.url] });
    expect(toolNamed(catalog, "listRemotePets").operation.serverUrl).toBe(`${server.url}api`);
  });

  it("refuses plain http to a host that is not loopback before fetching anything", async () => {
    const error = await rejection(loadCatalog("http://example.invalid/spec.yaml"));
    expect(error.code).toBe("E_HTTPS_REQUIRED");
    expect(error.message).toContain("http://example.invalid/spec.yaml");
  });
});
