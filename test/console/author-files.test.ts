// What a console admin's draft, and a source published into the registry, may read (issue 24, finding 3): only
// files inside the registry directory. A draft's name is checked on every endpoint that takes one (check, try,
// publish), so `../../../../d.yaml` cannot place it at `/` and make `/etc/passwd` a file "in its own directory"; a
// manifest's sources and a document's `$ref`s may not leave the registry directory by an absolute path, `..`, a
// symlink or a URL (a loopback upstream records that nothing was fetched); a server without a registry reads no
// file for a draft at all. Against a real `serve --transport http --console --registry`.

import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import { type ConsoleApi, type ConsoleServer, consoleApi, startConsoleServer } from "../support/console.js";
import { tempDir } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

const OUTSIDE = "outside-secret-7f3a0c";
const INSIDE = "inside-schema-2b91d4";

/** An OpenAPI document whose one tool's argument default is the `$ref` given. */
function document(ref: string, server = "http://127.0.0.1:9/"): string {
  return `openapi: 3.0.3
info: { title: Reader, version: "1" }
servers: [{ url: "${server}" }]
paths:
  /x:
    get:
      operationId: readIt
      parameters:
        - name: q
          in: query
          schema: { type: string, default: { $ref: "${ref}" } }
      responses: { "200": { description: ok } }
`;
}

/** A tool-less-looking document outside the registry: its description must never come back. */
const OUTSIDE_DOCUMENT = `openapi: 3.0.3
info: { title: ${OUTSIDE}, version: "1" }
servers: [{ url: "http://127.0.0.1:9/" }]
paths:
  /y:
    get:
      operationId: outsideTool
      description: ${OUTSIDE}
      responses: { "200": { description: ok } }
`;

let upstream: Upstream;
let server: ConsoleServer;
let bare: ConsoleServer;
let api: ConsoleApi;
let bareApi: ConsoleApi;
const temp = tempDir();
const registry = join(temp.dir, "registry");

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("GET", "/spec.yaml", ({ res }) => void res.writeHead(200).end(OUTSIDE_DOCUMENT));
  upstream.on("GET", /.*/, json({}));
  mkdirSync(join(registry, "schemas"), { recursive: true });
  mkdirSync(join(temp.dir, "outside"));
  writeFileSync(join(temp.dir, "outside/secret.yaml"), `value: ${OUTSIDE}\n`);
  writeFileSync(join(temp.dir, "outside/spec.yaml"), OUTSIDE_DOCUMENT);
  writeFileSync(join(registry, "schemas/default.yaml"), `value: ${INSIDE}\n`);
  symlinkSync(join(temp.dir, "outside"), join(registry, "schemas/link"));
  writeFileSync(join(temp.dir, "petstore.yaml"), readFileSync(join(ROOT, "examples/petstore.openapi.yaml")));
  [server, bare] = await Promise.all([
    startConsoleServer({ sources: [], args: ["--registry", registry] }),
    startConsoleServer({ sources: [join(temp.dir, "petstore.yaml")], args: ["--base-url", upstream.url] }),
  ]);
  [api, bareApi] = await Promise.all([consoleApi(server.origin), consoleApi(bare.origin)]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await bare?.stop();
  await upstream?.close();
  temp.remove();
});

/** Everything the console answered in this test, as text: nothing read outside the registry may be in it. */
const answered: string[] = [];
beforeEach(() => {
  answered.length = 0;
});
async function post(which: ConsoleApi, path: string, body: unknown) {
  const answer = await which.post(path, body);
  answered.push(JSON.stringify(answer.json));
  return answer;
}

describe("a draft's name", () => {
  const escaping = ["../../../../../../../../d.yaml", "../d.yaml", "sub/d.yaml", "/etc/d.yaml", ".d.yaml", "d.txt"];

  it("is checked by check, try and publish alike: a path is refused, nothing is read", async () => {
    const text = document("etc/passwd");
    for (const name of escaping)
      for (const [path, extra] of [
        ["author/check", {}],
        ["author/try", { action: "readIt", dryRun: true }],
        ["author/publish", {}],
      ] as const) {
        const answer = await post(api, path, { name, text, ...extra });
        expect(answer.status, `${path} ${name}`).toBe(400);
        expect(String(answer.json.error), `${path} ${name}`).toContain("a source's name is a file name");
      }
    expect(answered.join("\n")).not.toMatch(/root:/);
  });

  it("names the file as it will be in the registry, and a good name's draft reads files beside it", async () => {
    const answer = await post(api, "author/check", { name: "reader.yaml", text: document("schemas/default.yaml") });
    expect(answer.json.errors).toEqual([]);
    const [action] = answer.json.actions as Array<{ inputSchema: { properties: { q: { default: unknown } } } }>;
    expect(action!.inputSchema.properties.q.default).toEqual({ value: INSIDE });
  });
});

describe("what a registry source may reference", () => {
  it("no $ref out of the registry directory: absolute, `..`, a symlink leading out, a URL", async () => {
    for (const ref of [
      "/etc/passwd",
      join(temp.dir, "outside/secret.yaml"),
      "../outside/secret.yaml",
      "schemas/link/secret.yaml",
      `${upstream.url}/secret.yaml`,
    ]) {
      const answer = await post(api, "author/check", { name: "reader.yaml", text: document(ref) });
      expect((answer.json.errors as unknown[]).length, ref).toBeGreaterThan(0);
    }
    expect(answered.join("\n")).not.toContain(OUTSIDE);
    expect(answered.join("\n")).not.toMatch(/root:/);
    expect(upstream.requests).toHaveLength(0);
  });

  it("a manifest's sources only inside the registry directory: no absolute path, `..`, symlink out or URL", async () => {
    for (const source of [
      join(temp.dir, "outside/spec.yaml"),
      "../outside/spec.yaml",
      "schemas/link/spec.yaml",
      `${upstream.url}/spec.yaml`,
    ]) {
      const text = `sources:\n  - id: shop\n    source: ${JSON.stringify(source)}\n`;
      const checked = await post(api, "author/check", { name: "shop.yaml", text });
      expect((checked.json.errors as Array<{ message: string }>)[0]?.message, source).toContain(
        "inside the registry directory",
      );
      const published = await post(api, "author/publish", { name: "shop.yaml", text });
      expect(published.json.published, source).toBe(false);
    }
    expect(answered.join("\n")).not.toContain(OUTSIDE);
    expect(upstream.requests).toHaveLength(0);
    const status = (await api.get("author")).json as { registry: { sources: unknown[] } };
    expect(status.registry.sources).toEqual([]);
  });
});

describe("a draft on a server without a registry", () => {
  it("reads no file at all, not even beside the server's working directory", async () => {
    for (const ref of ["schemas/default.yaml", join(registry, "schemas/default.yaml"), "/etc/passwd"]) {
      const answer = await post(bareApi, "author/check", { name: "reader.yaml", text: document(ref) });
      expect((answer.json.errors as unknown[]).length, ref).toBeGreaterThan(0);
    }
    expect(answered.join("\n")).not.toContain(INSIDE);
    expect(answered.join("\n")).not.toMatch(/root:/);
  });
});
