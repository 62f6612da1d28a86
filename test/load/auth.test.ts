// Credentials for any source: `--auth`, a manifest's `auth` and a settings file's `auth` define schemes a document
// lacks (GitHub's spec declares none) or replace the ones it declares; every tool of the source then sends them.

import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { setUpEngine } from "../../src/app/setup.js";
import { example, toolNamed } from "../support/fixtures.js";
import { tempDir, writeFile } from "../support/guard.js";

const temp = tempDir("openapi-mcp-auth-");
afterAll(() => temp.remove());

/** A document that declares no security scheme at all, like GitHub's and Microsoft Graph's. */
const bare = writeFile(temp.dir, "bare.openapi.json", {
  openapi: "3.0.3",
  info: { title: "Bare", version: "1" },
  servers: [{ url: "https://bare.example.com" }],
  paths: {
    "/things": { get: { operationId: "listThings", summary: "List", responses: { "200": { description: "ok" } } } },
    "/things/{id}": {
      get: {
        operationId: "getThing",
        summary: "Get",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
  },
});
const petstore = example("petstore.openapi.yaml");
const widgets = example("widgets.actions.yaml");

function manifest(name: string, sources: Array<Record<string, unknown>>): string {
  return writeFile(temp.dir, name, { sources: sources.map((s) => ({ ...s, source: String(s.source) })) });
}

const requirementOf = (catalog: Catalog, tool: string) => toolNamed(catalog, tool).operation.security;

describe("--auth (LoadOptions.upstreamAuth)", () => {
  it("gives a source that declares no scheme one, which every tool sends", async () => {
    const catalog = await loadCatalog(bare, { upstreamAuth: ["bearer:BARE_TOKEN"] });
    expect(catalog.credentials).toEqual({ bearer: { name: "bearer", type: "bearer", token: { env: "BARE_TOKEN" } } });
    for (const tool of ["listThings", "getThing"])
      expect(requirementOf(catalog, tool)).toEqual([{ schemes: [{ id: "bearer", scopes: [] }] }]);
  });

  it("replaces what a document declares, for every tool, public ones included", async () => {
    const catalog = await loadCatalog(petstore, { upstreamAuth: ["header:X-Token:PET_TOKEN", "query:app:PET_APP"] });
    expect(Object.keys(catalog.credentials)).toEqual(["header", "query"]);
    expect(catalog.credentials.header).toMatchObject({
      type: "apiKey",
      in: "header",
      parameter: "X-Token",
      value: { env: "PET_TOKEN" },
    });
    expect(catalog.credentials.query).toMatchObject({
      type: "apiKey",
      in: "query",
      parameter: "app",
      value: { env: "PET_APP" },
    });
    // listPets declares `security: []`; with --auth it sends the credential too.
    for (const tool of ["listPets", "getPet"]) {
      expect(requirementOf(catalog, tool)).toEqual([
        {
          schemes: [
            { id: "header", scopes: [] },
            { id: "query", scopes: [] },
          ],
        },
      ]);
    }
  });

  it("basic takes two variables; an action definition's own credential is replaced too", async () => {
    const catalog = await loadCatalog(widgets, { upstreamAuth: ["basic:W_USER:W_PASS"] });
    expect(catalog.credentials).toEqual({
      basic: { name: "basic", type: "basic", username: { env: "W_USER" }, password: { env: "W_PASS" } },
    });
    expect(requirementOf(catalog, "get_widget")).toEqual([{ schemes: [{ id: "basic", scopes: [] }] }]);
  });

  it("picks a source of several, or of a manifest, by its id", async () => {
    const several = await loadCatalog([petstore, bare], { upstreamAuth: ["bare=bearer:BARE_TOKEN"] });
    expect(requirementOf(several, "bare__getThing")).toEqual([{ schemes: [{ id: "bare.bearer", scopes: [] }] }]);
    // The other source keeps what its document declares.
    expect(requirementOf(several, "petstore__getPet")).toEqual([{ schemes: [{ id: "petstore.api_key", scopes: [] }] }]);
    const shop = await loadCatalog(example("shop.manifest.yaml"), { upstreamAuth: ["widgets=bearer:W_TOKEN"] });
    expect(shop.credentials["widgets.bearer"]).toEqual({ name: "bearer", type: "bearer", token: { env: "W_TOKEN" } });
    expect(shop.credentials["widgets.widgets"]).toBeUndefined();
    expect(shop.credentials["pets.api_key"]).toMatchObject({ value: { env: "PETSTORE_KEY" } });
  });

  it.each([
    [
      [petstore, bare],
      ["bearer:T"],
      "with several sources, say which one it is for with a source-id= prefix: petstore, bare (e.g. petstore=bearer:VAR)",
    ],
    [[petstore, bare], ["cars=bearer:T"], "there is no source 'cars'; the sources are petstore, bare"],
    [[example("shop.manifest.yaml")], ["bearer:T"], "say which one it is for with a source-id= prefix: pets, widgets"],
    [
      [bare],
      ["bare=bearer:T"],
      "a source-id= prefix picks one of several sources or of a manifest; with one source, leave it out",
    ],
  ])("refuses %j with %j, naming the choices", async (sources, auth, message) => {
    await expect(loadCatalog(sources, { upstreamAuth: auth })).rejects.toMatchObject({
      code: "E_OPTION",
      message: expect.stringContaining(message),
    });
  });

  it.each([
    ["bearer", "--auth bearer:…: expected bearer:VAR"],
    ["bearer:A:B", "--auth bearer:…: expected bearer:VAR"],
    ["header:X-Key", "--auth header:…: expected header:NAME:VAR"],
    ["header:Host:T", "Host is set by HTTP itself"],
    ["query:a b:T", "the query name must be an HTTP token"],
    ["basic:U", "--auth basic:…: expected basic:USERVAR:PASSVAR"],
    ["bearer:9LIVES", "a variable name has letters, digits and '_'"],
    ["token:T", "--auth value: not one of the accepted forms"],
  ])("refuses --auth %s with a message showing the accepted forms", async (given, message) => {
    const error = (await loadCatalog(bare, { upstreamAuth: [given] }).catch((e: unknown) => e)) as Error & {
      code: string;
    };
    expect(error).toMatchObject({ code: "E_OPTION", message: expect.stringContaining(message) });
    expect(error.message).toContain(
      "bearer:VAR, header:NAME:VAR, query:NAME:VAR, cookie:NAME:VAR, basic:USERVAR:PASSVAR",
    );
  });

  it("never repeats a value that may be a pasted secret", async () => {
    const secret = "ghp_Zx81secretValue";
    for (const given of [secret, `${secret}=x`, `bearer:${secret}-with-dash`, `header:${secret}`]) {
      const error = (await loadCatalog(bare, { upstreamAuth: [given] }).catch((e: unknown) => e)) as Error;
      expect(error.message).not.toContain(secret);
    }
    // `--auth bearer:$TOKEN`: the shell put the value there, not the variable's name.
    const expanded = (await loadCatalog(bare, { upstreamAuth: [`bearer:${secret}`], env: { GH: secret } }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(expanded.message).toContain("give the environment variable's name, not its value");
    expect(expanded.message).not.toContain(secret);
  });
});

describe("a manifest's auth with a type", () => {
  it("gives GitHub's spec (no scheme declared) a token every tool sends", async () => {
    const github = fileURLToPath(
      new URL("../../node_modules/@octokit/openapi/generated/api.github.com.json", import.meta.url),
    );
    const file = manifest("github.manifest.json", [
      { id: "github", source: github, auth: { token: { type: "bearer", value: "${GITHUB_TOKEN}" } } },
    ]);
    const catalog = await loadCatalog(file);
    expect(catalog.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(catalog.credentials).toEqual({
      "github.token": { name: "token", type: "bearer", token: { env: "GITHUB_TOKEN" } },
    });
    expect(catalog.tools.length).toBeGreaterThan(1000);
    const requirements = new Set(catalog.tools.map((t) => JSON.stringify(t.operation.security)));
    expect([...requirements]).toEqual([JSON.stringify([{ schemes: [{ id: "github.token", scopes: [] }] }])]);
  });

  it("under a new name: a scheme every tool of the source sends; values default to the convention's variables", async () => {
    const file = manifest("typed.manifest.json", [
      {
        id: "bare",
        source: bare,
        auth: {
          token: { type: "bearer", value: "${BARE_TOKEN}" },
          app: { type: "apiKey", in: "query", name: "app_id" },
        },
      },
    ]);
    const catalog = await loadCatalog(file);
    expect(catalog.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(catalog.credentials["bare.token"]).toEqual({ name: "token", type: "bearer", token: { env: "BARE_TOKEN" } });
    expect(catalog.credentials["bare.app"]).toEqual({
      name: "app",
      type: "apiKey",
      in: "query",
      parameter: "app_id",
      value: { env: "API_KEY_BARE_APP" },
    });
    expect(requirementOf(catalog, "bare__getThing")).toEqual([
      {
        schemes: [
          { id: "bare.token", scopes: [] },
          { id: "bare.app", scopes: [] },
        ],
      },
    ]);
  });

  it("under a declared scheme's name: replaces that scheme; the tools keep their requirements", async () => {
    const file = manifest("replace.manifest.json", [
      {
        id: "pets",
        source: petstore,
        auth: {
          api_key: {
            type: "oauth2",
            tokenUrl: "https://login.example.com/token",
            scopes: ["pets"],
            clientId: "${PETS_ID}",
          },
        },
      },
    ]);
    const catalog = await loadCatalog(file);
    expect(catalog.credentials["pets.api_key"]).toEqual({
      name: "api_key",
      type: "oauth2",
      tokenUrl: "https://login.example.com/token",
      scopes: ["pets"],
      clientId: { env: "PETS_ID" },
      clientSecret: { env: "OAUTH_CLIENT_SECRET_PETS_API_KEY" },
    });
    expect(requirementOf(catalog, "pets__getPet")).toEqual([{ schemes: [{ id: "pets.api_key", scopes: [] }] }]);
    expect(requirementOf(catalog, "pets__listPets")).toEqual([]);
  });

  it("a value-only entry for a scheme the document lacks is still an error, now saying how to add one", async () => {
    const file = manifest("untyped.manifest.json", [{ id: "bare", source: bare, auth: { token: "${BARE_TOKEN}" } }]);
    const catalog = await loadCatalog(file);
    expect(catalog.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        code: "unknown-auth-scheme",
        pointer: "/sources/0/auth/token",
        message: expect.stringContaining(
          "(it defines: none); to add a scheme, give the entry a type (bearer, apiKey, basic or oauth2), or use --auth",
        ),
      }),
    );
  });

  it("refuses a typed entry missing what its type needs, or carrying what it does not take, with line and column", async () => {
    const file = writeFile(
      temp.dir,
      "bad-typed.manifest.yaml",
      `sources:\n  - id: bare\n    source: ${bare}\n    auth:\n      key: { type: apiKey, in: header }\n      token: { type: bearer, username: "\${U}" }\n      secret: { type: bearer, value: literal-secret }\n`,
    );
    const error = (await loadCatalog(file).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`${file}:5:12 #/sources/0/auth/key: missing required field 'name'`);
    expect(error.message).toContain("#/sources/0/auth/token/username: unknown field 'username'");
    expect(error.message).toContain("#/sources/0/auth/secret/value: must be a ${VAR} reference");
    expect(error.message).not.toContain("literal-secret");
  });

  it("--auth for a manifest source wins over the manifest's auth for it", async () => {
    const file = manifest("cli-wins.manifest.json", [
      { id: "bare", source: bare, auth: { token: { type: "bearer" } } },
    ]);
    const catalog = await loadCatalog(file, { upstreamAuth: ["bare=header:X-Key:KEY"] });
    expect(Object.keys(catalog.credentials)).toEqual(["bare.header"]);
  });
});

describe("a settings file's auth", () => {
  const settings = (name: string, value: unknown): string => writeFile(temp.dir, name, value);

  it("defines schemes by name for one source, and by <source-id>.<name> for several; credentials give their values", async () => {
    const one = settings("one.settings.json", {
      auth: { token: { type: "bearer", value: "${BARE_TOKEN}" } },
      credentials: { token: "from-settings-1" },
    });
    const single = await setUpEngine(bare, { config: one, env: {}, log: () => {} });
    expect(single.catalog.credentials.token).toEqual({ name: "token", type: "bearer", token: { env: "BARE_TOKEN" } });
    expect(single.env.BARE_TOKEN).toBe("from-settings-1");

    const two = settings("two.settings.json", { auth: { "bare.token": { type: "bearer" } } });
    const several = await setUpEngine([petstore, bare], { config: two, env: {}, log: () => {} });
    expect(several.catalog.credentials["bare.token"]).toEqual({
      name: "token",
      type: "bearer",
      token: { env: "BEARER_TOKEN_BARE_TOKEN" },
    });
    expect(requirementOf(several.catalog, "bare__listThings")).toEqual([
      { schemes: [{ id: "bare.token", scopes: [] }] },
    ]);
  });

  it("with several sources, a key that names no source is refused, naming the place and the ids", async () => {
    const file = settings("stray.settings.json", { auth: { token: { type: "bearer" } } });
    await expect(setUpEngine([petstore, bare], { config: file, env: {}, log: () => {} })).rejects.toMatchObject({
      code: "E_SETTINGS",
      message: expect.stringContaining(
        `${file}#/auth/token: with several sources, name a scheme as <source-id>.<scheme>, with a source id of petstore, bare`,
      ),
    });
  });
});

describe("OAuth URLs that are relative references", () => {
  it("resolve against the server's URL, as OpenAPI 3 says, in a document read from a file", async () => {
    const file = writeFile(temp.dir, "relative-oauth.openapi.json", {
      openapi: "3.0.3",
      info: { title: "Relative OAuth", version: "1" },
      servers: [{ url: "https://api.example.test/v1" }],
      components: {
        securitySchemes: {
          oauth: {
            type: "oauth2",
            flows: {
              clientCredentials: { tokenUrl: "/oauth2/token", scopes: {} },
              authorizationCode: { authorizationUrl: "authorize", tokenUrl: "/oauth2/token", scopes: {} },
            },
          },
        },
      },
      security: [{ oauth: [] }],
      paths: { "/things": { get: { operationId: "listThings", responses: { "200": { description: "ok" } } } } },
    });
    const catalog = await loadCatalog(file);
    const scheme = catalog.credentials.oauth;
    // Before: "" for a file, so the scheme fell back to asking for a bearer token.
    expect(scheme?.type).toBe("oauth2");
    expect(scheme && "tokenUrl" in scheme ? scheme.tokenUrl : undefined).toBe("https://api.example.test/oauth2/token");
    expect(scheme && "authorizationCode" in scheme ? scheme.authorizationCode : undefined).toMatchObject({
      // RFC 3986: "authorize" against ".../v1" (no trailing slash) replaces the last segment.
      authorizationUrl: "https://api.example.test/authorize",
      tokenUrl: "https://api.example.test/oauth2/token",
    });
  });
});
