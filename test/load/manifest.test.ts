// Manifests: several sources in one catalog, each under its namespace id (`cars__search_cars`), with paths relative
// to the manifest, base URL overrides with ${VAR}s, per-source filters and auth mappings.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import {
  errors,
  example,
  fixture,
  loadFixture,
  names,
  rejection,
  schemaProblems,
  toolNamed,
} from "../support/fixtures.js";

const ENV = { FLEET_CARS_URL: "https://cars.internal.example.com", CARS_KEY: "unused", CARS_PASSWORD: "unused" };

describe("examples/shop.manifest.yaml", () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadCatalog(example("shop.manifest.yaml"));
  });

  it("namespaces each source's tools and applies its filters", () => {
    expect(names(catalog)).toEqual([
      "pets__listPets",
      "pets__createPet",
      "pets__getPet",
      "pets__placeOrder",
      "widgets__get_widget",
      "widgets__search_widgets",
      "widgets__create_widget",
      "widgets__delete_widget",
    ]);
    expect(catalog.sources.map((s) => [s.id, s.kind])).toEqual([
      ["pets", "openapi"],
      ["widgets", "actions"],
    ]);
    expect(errors(catalog)).toEqual([]);
    expect(schemaProblems(catalog)).toEqual([]);
  });

  it("maps the petstore scheme to the variable the manifest names, and keys credentials by source", () => {
    expect(catalog.credentials).toEqual({
      "pets.api_key": expect.objectContaining({
        type: "apiKey",
        in: "header",
        parameter: "X-API-Key",
        value: { env: "PETSTORE_KEY" },
      }),
      "widgets.widgets": expect.objectContaining({
        type: "apiKey",
        in: "header",
        parameter: "X-API-Key",
        value: { env: "WIDGETS_API_KEY" },
      }),
    });
    expect(toolNamed(catalog, "pets__getPet").operation.security).toEqual([
      { schemes: [{ id: "pets.api_key", scopes: [] }] },
    ]);
    expect(toolNamed(catalog, "pets__listPets").operation.security).toEqual([]);
  });

  it("keeps each source's shared definitions apart", () => {
    const keys = Object.keys(catalog.definitions);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^(pets|widgets)\./);
  });
});

describe("a manifest of two OpenAPI documents and an action definition", () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadFixture("manifest/fleet.manifest.yaml", { env: ENV });
  });

  it("names tools <id>__<name>, so same-named operations of different sources do not collide", () => {
    expect(names(catalog)).toEqual([
      "cars__search_cars",
      "cars__getCar",
      "cars__deleteCar",
      "trucks__listTrucks",
      "trucks__createTruck",
      "trucks__ping",
      "notes__list_notes",
    ]);
    expect(toolNamed(catalog, "cars__search_cars").origin).toMatchObject({
      operationId: "search_cars",
      tags: ["public"],
    });
    expect(toolNamed(catalog, "cars__search_cars").source).toBe("cars");
  });

  it("resolves source paths against the manifest's directory, not the working directory", () => {
    expect(process.cwd()).not.toBe(fixture("manifest"));
    expect(catalog.sources.map((s) => s.title)).toEqual(["Cars", "Trucks", "Notes service"]);
  });

  it("overrides the base URL with ${VAR}s expanded and the trailing slash trimmed", () => {
    for (const name of ["cars__search_cars", "cars__getCar", "cars__deleteCar"]) {
      expect(toolNamed(catalog, name).operation.serverUrl).toBe("https://cars.internal.example.com/v2");
    }
    expect(toolNamed(catalog, "trucks__listTrucks").operation.serverUrl).toBe("https://trucks.example.com");
  });

  it("maps auth to the variables the manifest names, per scheme", () => {
    expect(catalog.credentials["cars.cars_key"]).toEqual({
      name: "cars_key",
      type: "apiKey",
      in: "header",
      parameter: "X-Cars-Key",
      value: { env: "CARS_KEY" },
    });
    expect(catalog.credentials["cars.cars_basic"]).toEqual({
      name: "cars_basic",
      type: "basic",
      username: { value: "fleet-bot" },
      password: { env: "CARS_PASSWORD" },
    });
    expect(catalog.credentials["notes.notes"]).toEqual({
      name: "notes",
      type: "bearer",
      token: { env: "FLEET_NOTES_TOKEN" },
    });
    expect(toolNamed(catalog, "cars__deleteCar").operation.security).toEqual([
      { schemes: [{ id: "cars.cars_basic", scopes: [] }] },
    ]);
  });

  it("without a mapping, names the variables after the source id and scheme", () => {
    expect(catalog.credentials["trucks.fleet-oauth"]).toEqual({
      name: "fleet-oauth",
      type: "oauth2",
      tokenUrl: "https://auth.trucks.example.com/oauth/token",
      scopes: ["trucks.read", "trucks.write"],
      clientId: { env: "OAUTH_CLIENT_ID_TRUCKS_FLEET_OAUTH" },
      clientSecret: { env: "OAUTH_CLIENT_SECRET_TRUCKS_FLEET_OAUTH" },
    });
    expect(toolNamed(catalog, "trucks__listTrucks").operation.security).toEqual([
      { schemes: [{ id: "trucks.fleet-oauth", scopes: ["trucks.read"] }] },
    ]);
  });

  it("applies each source's include and exclude filters to that source only", () => {
    expect(names(catalog).filter((n) => n.startsWith("cars__"))).not.toContain("cars__internalStats");
    expect(names(catalog)).not.toContain("cars__ping");
    expect(names(catalog)).toContain("trucks__ping");
    expect(names(catalog)).not.toContain("trucks__retireTruck");
    expect(names(catalog)).not.toContain("trucks__getTruckHistory");
    expect(names(catalog).filter((n) => n.startsWith("notes__"))).toEqual(["notes__list_notes"]);
    expect(catalog.diagnostics.filter((d) => d.code === "filter-unmatched")).toEqual([]);
  });
  it("loads cleanly, and every listed schema compiles", () => {
    expect(errors(catalog)).toEqual([]);
    expect(schemaProblems(catalog)).toEqual([]);
  });
});

describe("manifests that are refused", () => {
  it("names the manifest entry and the variable when a ${VAR} in baseUrl is unset", async () => {
    const file = fixture("manifest/missing-var.manifest.yaml");
    const error = await rejection(loadCatalog(file, { env: {} }));
    expect(error.code).toBe("E_ENV");
    expect(error.message).toBe(`${file}#/sources/0/baseUrl: environment variable FLEET_UNSET_BASE_URL is not set`);
  });

  it("refuses a literal secret in auth, naming line:column and pointer without echoing it", async () => {
    const file = fixture("manifest/literal-secret.manifest.yaml");
    const error = await rejection(loadCatalog(file));
    expect(error.code).toBe("E_INVALID_DEFINITION");
    expect(error.message).toContain(`${file}:5:17 #/sources/0/auth/cars_key: must be a \${VAR} reference`);
    expect(error.message).not.toContain("hunter2");
  });

  it.each([
    { given: "duplicate-ids", want: [/:4:\d+ #\/sources\/1\/id: id 'Cars' is already used by #\/sources\/0/] },
    {
      given: "bad-id",
      want: [/:2:\d+ #\/sources\/0\/id: must match/, /:6:\d+ #\/sources\/1\/color: unknown field 'color'/],
    },
    {
      given: "nested",
      want: [/#\/sources\/0\/source: .*fleet\.manifest\.yaml is itself a manifest; manifests do not nest/],
    },
  ])("refuses $given, naming the place", async ({ given, want }) => {
    const file = fixture(`manifest/${given}.manifest.yaml`);
    const error = await rejection(loadCatalog(file, { env: ENV }));
    expect(error.message).toContain(file);
    for (const pattern of want) expect(error.message).toMatch(pattern);
  });

  it("names the manifest entry whose source file is missing", async () => {
    const file = fixture("manifest/missing-source.manifest.yaml");
    const error = await rejection(loadCatalog(file));
    expect(error.code).toBe("E_SOURCE");
    expect(error.message).toContain("ghost.openapi.yaml");
    expect(error.message).toContain(`${file}#/sources/0/source`);
  });

  it("refuses --base-url, which applies to one source only", async () => {
    const error = await rejection(
      loadFixture("manifest/fleet.manifest.yaml", { env: ENV, baseUrl: "https://elsewhere.example.com" }),
    );
    expect(error.code).toBe("E_OPTION");
    expect(error.message).toContain("--base-url does not apply to a manifest");
  });

  it("reports an auth mapping that names no credential of an action definition, instead of ignoring it", async () => {
    const catalog = await loadCatalog(fixture("manifest/unknown-action-auth.manifest.yaml"));
    expect(catalog.credentials["widgets.widgets"]).toMatchObject({ value: { env: "WIDGETS_API_KEY" } });
    expect(errors(catalog)).toEqual([
      expect.objectContaining({ severity: "error", message: expect.stringContaining("'widget'") }),
    ]);
  });

  it("reports an auth mapping for a scheme the source lacks as an error in the manifest, at its pointer", async () => {
    const file = fixture("manifest/unknown-scheme.manifest.yaml");
    const catalog = await loadCatalog(file, { env: ENV });
    expect(errors(catalog)).toEqual([
      expect.objectContaining({
        code: "unknown-auth-scheme",
        file,
        pointer: "/sources/0/auth/car_key",
        message: expect.stringContaining("'car_key'"),
      }),
    ]);
  });
});
