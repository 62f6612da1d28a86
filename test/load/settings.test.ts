import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { readSettings } from "../../src/load/settings.js";
import { credentialEnvironment } from "../../src/runtime/settings.js";

function settingsFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "settings-")), "settings.yaml");
  writeFileSync(file, text);
  return file;
}

describe("settings file", () => {
  it("reads options, policies and rate limits", async () => {
    const settings = await readSettings(
      settingsFile(`
timeoutMs: 5000
outputValidation: warn
policy: { destructive: approve, deletePet: deny }
rateLimits:
  tools: { listPets: { requests: 5, windowSeconds: 1 } }
auditLog: "-"
`),
    );
    expect(settings).toMatchObject({
      timeoutMs: 5000,
      outputValidation: "warn",
      policy: { destructive: "approve", deletePet: "deny" },
      rateLimits: { tools: { listPets: { requests: 5, windowSeconds: 1 } } },
      auditLog: "-",
    });
  });

  it("reports every problem with its line, column and pointer", async () => {
    const file = settingsFile("timeoutMs: fast\npolicy: { read: maybe }\nbogus: 1\n");
    const message = await readSettings(file).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(message).toContain(`${file}:1:12 #/timeoutMs: must be integer`);
    expect(message).toContain(`${file}:2:17 #/policy/read: must be one of: "allow", "approve", "deny"`);
    expect(message).toContain(`${file}:3:8 #/bogus: unknown field 'bogus'`);
  });

  it("puts credential values under the variables the catalog's schemes read, never into the catalog", async () => {
    const catalog = await loadCatalog("examples/shop.manifest.yaml");
    const settings = await readSettings(
      settingsFile(
        'credentials:\n  pets.api_key: "${SHOP_SECRET}"\n  widgets.widgets: { value: literal-widgets-key }\n',
      ),
    );
    const env = credentialEnvironment({ settings, catalog, env: { SHOP_SECRET: "from-env" } });
    expect(env.PETSTORE_KEY).toBe("from-env");
    expect(env.WIDGETS_API_KEY).toBe("literal-widgets-key");
    expect(JSON.stringify(catalog)).not.toContain("literal-widgets-key");
  });

  it.each([
    [
      'credentials: { nope: "x" }',
      /#\/credentials\/nope: no security scheme 'nope' \(the source has: pets.api_key, widgets.widgets\)/,
    ],
    ["credentials: { pets.api_key: { username: u } }", /an apiKey scheme takes value, not username/],
    ['credentials: { pets.api_key: "${UNSET_VARIABLE}" }', /environment variable UNSET_VARIABLE is not set/],
  ])("refuses %s", async (text, message) => {
    const catalog = await loadCatalog("examples/shop.manifest.yaml");
    const settings = await readSettings(settingsFile(text));
    expect(() => credentialEnvironment({ settings, catalog, env: {} })).toThrow(message);
  });
});
