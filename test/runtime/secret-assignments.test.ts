// The engine itself holds a registry source to the secrets assigned to it (settings `registrySecrets`), whatever
// the loader let through: given a catalog loaded without the check (as if a way around it were found), a call
// that would read an unassigned variable or `${file:…}`, or send an assigned secret to another origin (its base
// URL or its token URL), is refused and nothing reaches any upstream; variables it may read are the assigned
// ones only; at an assigned origin it is sent with its key. A recording loopback upstream stands for the API.

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretAssignments } from "../../src/catalog/secret-assignments.js";
import { loadCatalog } from "../../src/load/index.js";
import { startEngine } from "../../src/runtime/start.js";
import { tempDir, textOf } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

const ENV = { WIDGETS_KEY: "widgets-key-1f2e3d4c", DB_PASSWORD: "db-password-9a8b7c6d" };
let api: Upstream;
let other: Upstream;
const temp = tempDir();
let secretFile: string;

beforeAll(async () => {
  [api, other] = await Promise.all([Upstream.start(), Upstream.start()]);
  for (const upstream of [api, other]) {
    upstream.on("GET", /.*/, json({ ok: true }));
    upstream.on("POST", "/token", json({ access_token: "t", token_type: "Bearer", expires_in: 60 }));
  }
  secretFile = join(temp.dir, "secret");
  writeFileSync(secretFile, "file-secret-5e6f7a8b");
  chmodSync(secretFile, 0o600);
});

afterAll(async () => {
  await Promise.all([api?.close(), other?.close()]);
  temp.remove();
});

/** The engine of a registry whose `widgets` may read WIDGETS_KEY and send it to `api` only. */
async function engineFor({ baseUrl, auth, headers = "" }: { baseUrl: string; auth: string; headers?: string }) {
  const file = join(temp.dir, "widgets.yaml");
  writeFileSync(
    file,
    `name: widgets\nbaseUrl: ${baseUrl}\nauth: ${auth}\n${headers}actions:\n  - { name: get, description: One., method: GET, path: /w, inputSchema: { type: object } }\n`,
  );
  const catalog = await loadCatalog(file, { namespaceEach: true, allowInsecureHttp: true });
  const secretAssignments = new SecretAssignments({
    registrySecrets: { widgets: { secrets: ["WIDGETS_KEY"], origins: [api.url] } },
    file: "settings.yaml",
  });
  return startEngine({ catalog, env: ENV, log: () => {}, allowInsecureHttp: true, secretAssignments });
}

describe("the engine of a registry source", () => {
  it.each([
    [
      "an unassigned variable",
      { baseUrl: "API", auth: '{ type: bearer, token: "${DB_PASSWORD}" }' },
      "DB_PASSWORD is not assigned",
    ],
    [
      "an unassigned file",
      { baseUrl: "API", auth: '{ type: bearer, token: "${file:FILE}" }' },
      "${file:FILE} is not assigned",
    ],
    [
      "an unassigned variable in a static header",
      { baseUrl: "API", auth: "{ type: none }", headers: 'headers: { X-Db: "${DB_PASSWORD}" }\n' },
      "DB_PASSWORD is not assigned",
    ],
    [
      "an assigned key to another origin",
      { baseUrl: "OTHER", auth: '{ type: bearer, token: "${WIDGETS_KEY}" }' },
      "OTHER is not an origin the source 'widgets' may send",
    ],
    [
      "an assigned key posted to another token URL",
      {
        baseUrl: "API",
        auth: '{ type: oauth2, tokenUrl: "OTHER/token", clientId: c, clientSecret: "${WIDGETS_KEY}" }',
      },
      "OTHER is not an origin the source 'widgets' may send",
    ],
  ])("refuses %s, naming registrySecrets.widgets; nothing is sent", async (_, given, why) => {
    const fill = (text: string): string =>
      text.replaceAll("API", api.url).replaceAll("OTHER", other.url).replaceAll("FILE", secretFile);
    const engine = await engineFor({
      baseUrl: fill(given.baseUrl),
      auth: fill(given.auth),
      ...("headers" in given ? { headers: given.headers } : {}),
    });
    for (const dryRun of [false, true]) {
      const result = dryRun
        ? await engine.prepare("widgets__get", {}, { dryRun: true }).then((p) => ("error" in p ? p.error : p))
        : await engine.callTool("widgets__get", {});
      expect(textOf(result)).toContain(fill(why));
      expect(textOf(result)).toContain("registrySecrets.widgets (settings.yaml)");
      expect(textOf(result)).toContain("Nothing was sent.");
    }
    expect([...api.requests, ...other.requests]).toEqual([]);
  });

  it("reads only the assigned variables, and sends an assigned key to its origin", async () => {
    const engine = await engineFor({ baseUrl: api.url, auth: '{ type: bearer, token: "${WIDGETS_KEY}" }' });
    const result = await engine.callTool("widgets__get", {});
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(api.only().headers.authorization).toBe(`Bearer ${ENV.WIDGETS_KEY}`);
  });
});
