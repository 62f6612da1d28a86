// A namespace clash is refused, never renamed (issue 24, finding 8). `pets.0.yaml`, its own server and a scheme
// also named `api_key`, took the namespace `pets` from `pets.yaml` (the name sorting first won): agents'
// `pets__listPets` went to the new server carrying the real source's key, the real source became `pets2__*`, and
// `--policy pets__deletePet=deny` no longer named its delete. Now the source published keeps its namespace and the
// newcomer is refused naming both files: published from the console, dropped into the directory, drafted and tried.
// At start, two files taking one namespace are both refused; so are two on the command line and manifest ids that
// read the same credential variables. Against a real `serve --transport http --console --registry` with two
// loopback upstreams, the real API and the newcomer's.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { serve } from "../../src/app/serve.js";
import { ROOT } from "../support/cli.js";
import { type ConsoleApi, type ConsoleServer, consoleApi, startConsoleServer } from "../support/console.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

const KEY = "pets-real-key-0d41c7";
const PETSTORE = readFileSync(join(ROOT, "examples/petstore.openapi.yaml"), "utf8");
const petstoreAt = (url: string): string => PETSTORE.replace("https://petstore.example.com/v1", url);

let real: Upstream;
let newcomer: Upstream;
let server: ConsoleServer;
let api: ConsoleApi;
let client: Client;
let config: string;
const temp = tempDir();
const registry = join(temp.dir, "registry");

beforeAll(async () => {
  [real, newcomer] = await Promise.all([Upstream.start(), Upstream.start()]);
  for (const upstream of [real, newcomer])
    upstream.on("GET", "/pets/1", json({ id: 1, name: "Rex", kind: { species: "dog" } }));
  mkdirSync(registry);
  writeFileSync(join(registry, "pets.yaml"), petstoreAt(real.url));
  config = writeFile(temp.dir, "settings.json", {
    registrySecrets: {
      pets: { secrets: ["API_KEY_PETS_API_KEY"], origins: [real.url] },
      store: { secrets: ["API_KEY_STORE_API_KEY"], origins: [real.url] },
    },
  });
  server = await startConsoleServer({
    sources: [],
    args: ["--registry", registry, "--config", config, "--policy", "pets__deletePet=deny"],
    env: { API_KEY_PETS_API_KEY: KEY },
  });
  api = await consoleApi(server.origin);
  client = new Client({ name: "clash", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await Promise.all([real?.close(), newcomer?.close()]);
  temp.remove();
});

/** What an agent sees: the tool names, and where `pets__getPet` goes with which key. */
async function agentView(): Promise<{ names: string[]; got: { at: string; key: unknown } }> {
  const names = (await client.listTools()).tools.map((t) => t.name).sort();
  const [before, beforeNew] = [real.requests.length, newcomer.requests.length];
  const result = await client.callTool({ name: "pets__getPet", arguments: { petId: 1 } });
  expect(result.isError, textOf(result)).toBeFalsy();
  const at = real.requests.length > before ? "real" : newcomer.requests.length > beforeNew ? "newcomer" : "none";
  const request = at === "real" ? real.requests.at(-1)! : newcomer.requests.at(-1)!;
  return { names, got: { at, key: request.headers["x-api-key"] } };
}

const ORIGINAL = ["pets__createPet", "pets__getPet", "pets__listPets", "pets__placeOrder"];

describe("a registry source taking a published source's namespace", () => {
  it("is refused when published from the console, naming both files; nothing is written, the original keeps its tools and key", async () => {
    const published = await api.post("author/publish", { name: "pets.0.yaml", text: petstoreAt(newcomer.url) });
    expect(published.json.published).toBe(false);
    const [error] = published.json.errors as Array<{ message: string }>;
    expect(error!.message).toContain("pets.0.yaml takes the namespace 'pets', which pets.yaml has");
    expect(existsSync(join(registry, "pets.0.yaml"))).toBe(false);
    expect(await agentView()).toEqual({ names: ORIGINAL, got: { at: "real", key: KEY } });
    // The policy still names the original's delete: hidden, and refused.
    await expect(client.callTool({ name: "pets__deletePet", arguments: { petId: 1 } })).rejects.toThrow(
      "Unknown tool: pets__deletePet",
    );
    expect(newcomer.requests).toHaveLength(0);
  });

  it("is an error of the draft on the Author page, and cannot be tried (nothing reaches its server)", async () => {
    const draft = { name: "Pets.0.yaml", text: petstoreAt(newcomer.url) };
    const checked = await api.post("author/check", draft);
    expect((checked.json.errors as Array<{ message: string }>)[0]!.message).toContain(
      "Pets.0.yaml takes the namespace 'Pets', which pets.yaml has (as 'pets'",
    );
    for (const dryRun of [true, false]) {
      const tried = await api.post("author/try", { ...draft, action: "Pets__listPets", arguments: {}, dryRun });
      expect(tried.status).toBe(422);
      expect(String(tried.json.error)).toContain("which pets.yaml has");
    }
    expect(newcomer.requests).toHaveLength(0);
  });

  it("is rejected when dropped into the directory: the status names both files, agents' calls still reach the real API", async () => {
    writeFileSync(join(registry, "pets.0.yaml"), petstoreAt(newcomer.url));
    await expect
      .poll(
        async () => {
          const { registry: status } = (await api.get("author")).json as {
            registry: { sources: Array<{ name: string; state: string; errors: Array<{ message: string }> }> };
          };
          return status.sources.find((s) => s.name === "pets.0.yaml");
        },
        { timeout: 10_000 },
      )
      .toMatchObject({
        state: "rejected",
        errors: expect.arrayContaining([
          expect.objectContaining({
            message: expect.stringContaining("pets.0.yaml takes the namespace 'pets', which pets.yaml has"),
          }),
        ]),
      });
    expect(await agentView()).toEqual({ names: ORIGINAL, got: { at: "real", key: KEY } });
    expect(newcomer.requests).toHaveLength(0);
  });
});

describe("two sources taking one namespace at start", () => {
  it("in a registry directory: neither is published, each error names the other; the rest serve", async () => {
    const dir = join(temp.dir, "both");
    mkdirSync(dir);
    writeFileSync(join(dir, "pets.yaml"), petstoreAt(real.url));
    // The same server, so only the names decide (another server would be refused anyway: not an origin of pets).
    writeFileSync(join(dir, "pets.0.yaml"), petstoreAt(real.url));
    writeFileSync(join(dir, "store.yaml"), petstoreAt(real.url));
    const running = await serve([], { registry: dir, config, transport: "http", port: 0, log: () => {} });
    try {
      const { sources } = running.registry!.status();
      expect(sources.map((s) => [s.name, s.state])).toEqual([
        ["pets.0.yaml", "rejected"],
        ["pets.yaml", "rejected"],
        ["store.yaml", "published"],
      ]);
      expect(sources[0]!.errors[0]!.message).toContain("pets.0.yaml and pets.yaml both take the namespace 'pets'");
      expect(running.catalog.tools.every((tool) => tool.source === "store")).toBe(true);
    } finally {
      await running.close();
    }
  });

  it("on the command line, and as manifest ids that read the same credential variables: refused", async () => {
    for (const sub of ["a", "b"]) {
      mkdirSync(join(temp.dir, sub));
      writeFileSync(join(temp.dir, sub, "pets.yaml"), petstoreAt(real.url));
    }
    await expect(loadCatalog([join(temp.dir, "a/pets.yaml"), join(temp.dir, "b/pets.yaml")])).rejects.toThrow(
      /b\/pets\.yaml and .*a\/pets\.yaml both take the namespace 'pets'/,
    );
    writeFileSync(
      join(temp.dir, "shop.yaml"),
      "sources:\n  - { id: pet-store, source: a/pets.yaml }\n  - { id: Pet_Store, source: b/pets.yaml }\n",
    );
    await expect(loadCatalog(join(temp.dir, "shop.yaml"))).rejects.toThrow(
      /id 'Pet_Store' is already used by #\/sources\/0 \('pet-store'/,
    );
  });
});
