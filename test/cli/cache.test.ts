// The catalog cache as a user meets it: a second start of the same sources answers from the cache, with exactly
// the listing a fresh start gives (over stdio byte for byte, in pages too, with tools hidden by policy, without
// output schemas, over HTTP); `--no-cache` and the settings file's `cache: false` leave it alone; a cache that
// cannot be written changes nothing; several starts at once leave one whole entry.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../../src/load/recorded-reads.js";
import { serve } from "../../src/app/serve.js";
import { CLI, runCli } from "../support/cli.js";
import { example } from "../support/fixtures.js";
import { startPeer } from "../support/stdio-peer.js";

const PETSTORE = example("petstore.openapi.yaml");

let home: string;
let work: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "cli-cache-home-"));
  work = mkdtempSync(join(tmpdir(), "cli-cache-work-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const entries = (): string[] => {
  try {
    return readdirSync(join(home, "openapi-mcp"));
  } catch {
    return [];
  }
};

/** Every tools/list answer of one start, as the server wrote them, following cursors. */
async function listing(args: string[], env: Record<string, string> = {}): Promise<{ pages: string[]; stderr: string }> {
  const peer = await startPeer({
    command: process.execPath,
    args: [CLI, "serve", ...args],
    env: { XDG_CACHE_HOME: home, ...env },
  });
  await peer.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "cache-test", version: "0" },
  });
  peer.notify("notifications/initialized");
  const pages: string[] = [];
  let cursor: string | undefined;
  do {
    const line = await peer.request("tools/list", cursor === undefined ? {} : { cursor });
    pages.push(line.replace(/"id":\d+/, '"id":0'));
    cursor = (JSON.parse(line) as { result: { nextCursor?: string } }).result.nextCursor;
  } while (cursor !== undefined);
  // Read once the server is gone: what follows the first answers (the budget line, a cache warning) is in.
  await peer.close();
  return { pages, stderr: peer.stderr() };
}

/** An API whose listing takes two pages (≈ 6 MB): 1,500 operations with long descriptions. */
function largeSpec(): string {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 1500; i++) {
    paths[`/things/${i}`] = {
      get: {
        operationId: `getThing${i}`,
        description: `Thing ${i}. ${"Lorem ipsum dolor sit amet. ".repeat(143)}`,
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } },
          },
        },
      },
    };
  }
  const file = join(work, "large.json");
  writeFileSync(
    file,
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Large", version: "1" },
      servers: [{ url: "https://large.example.com" }],
      paths,
    }),
  );
  return file;
}

describe("serve from the cache", () => {
  it.each([
    ["as it is", [PETSTORE]],
    ["with tools hidden by policy", [PETSTORE, "--policy", "write=deny"]],
    ["without output schemas", [PETSTORE, "--output-validation", "warn"]],
    ["in dynamic mode", [PETSTORE, "--mode", "dynamic"]],
  ])("lists byte for byte what a fresh start lists: %s", async (_, args) => {
    const fresh = await listing([...args, "--no-cache"]);
    expect(entries()).toEqual([]);
    const first = await listing(args);
    expect(entries()).toHaveLength(1);
    const later = await listing([...args, "--debug"]);
    expect(later.stderr).toMatch(/^openapi-mcp: catalog cache: using .*\.catalog$/m);
    expect(later.pages).toEqual(fresh.pages);
    expect(first.pages).toEqual(fresh.pages);
    expect(later.stderr.replace(/^openapi-mcp: catalog cache: .*\n/m, "")).toBe(fresh.stderr);
  });

  it("lists a listing of several pages byte for byte as a fresh start does, cursors included", async () => {
    const large = largeSpec();
    const fresh = await listing([large, "--no-cache"]);
    expect(fresh.pages.length).toBeGreaterThan(1);
    expect(fresh.stderr).toMatch(/MB read, parsing…/);
    await listing([large]);
    const later = await listing([large]);
    // Nothing to parse or build: the catalog and its listing come from the cache.
    expect(later.stderr).not.toMatch(/parsing…|building tools/);
    expect(later.pages).toEqual(fresh.pages);
  });

  it("over HTTP lists what a fresh start lists", async () => {
    const list = async (cache: boolean) => {
      const running = await serve(PETSTORE, { transport: "http", port: 0, cache, cacheDir: home, log: () => {} });
      const client = new Client({ name: "cache-http", version: "0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
      const { tools } = await client.listTools();
      await client.close();
      await running.close();
      return tools;
    };
    const fresh = await list(false);
    await list(true);
    expect(readdirSync(home)).toHaveLength(1);
    expect(await list(true)).toEqual(fresh);
  });
});

describe("an entry whose schemas are read after the first answers", () => {
  it("when they cannot be used, stops the server with a message before any call, removes the entry, and the next start builds afresh", async () => {
    const fresh = await listing([PETSTORE, "--no-cache"]);
    await listing([PETSTORE]);
    const [name] = entries();
    const file = join(home, "openapi-mcp", name!);
    // Well-formed, digest matching, but a tool's input schema is not an object's (line 3: cache-entry.ts).
    const lines = readFileSync(file, "utf8").split("\n");
    const schemas = JSON.parse(lines[3]!) as { tools: unknown[][] };
    schemas.tools[0]![1] = { type: "string" };
    lines[3] = JSON.stringify(schemas);
    const body = lines.slice(1).join("\n");
    writeFileSync(file, `${lines[0]!.replace(/ [0-9a-f]{64}$/, "")} ${digestOf(body)}\n${body}`);

    const peer = await startPeer({
      command: process.execPath,
      args: [CLI, "serve", PETSTORE],
      env: { XDG_CACHE_HOME: home, API_KEY_API_KEY: "k-123456" },
    });
    await expect(peer.request("tools/call", { name: "listPets", arguments: {} })).rejects.toThrow(/the server exited/);
    expect(peer.stderr()).toMatch(
      /the catalog cache entry .* cannot be used: its schemas are not valid: .*; it is removed, start again/,
    );
    await peer.close();
    expect(entries()).toEqual([]);
    expect((await listing([PETSTORE])).pages).toEqual(fresh.pages);
  });
});

describe("the cache on the command line", () => {
  it("is in $XDG_CACHE_HOME/openapi-mcp; --no-cache neither reads nor writes it", async () => {
    const env = { XDG_CACHE_HOME: home };
    const fresh = await runCli(["inspect", PETSTORE, "--no-cache"], { env });
    expect(fresh.code).toBe(0);
    expect(entries()).toEqual([]);
    expect(await runCli(["inspect", PETSTORE], { env })).toEqual(fresh);
    expect(entries()).toEqual([expect.stringMatching(/\.catalog$/)]);
    expect(await runCli(["inspect", PETSTORE], { env })).toEqual(fresh);
  });

  it("is left alone when the settings file says cache: false", async () => {
    const settings = join(work, "settings.yaml");
    writeFileSync(settings, "cache: false\n");
    const { code, stderr } = await runCli(["call", PETSTORE, "listPets", "--dry-run", "--config", settings], {
      env: { XDG_CACHE_HOME: home },
    });
    expect(code, stderr).toBe(0);
    expect(entries()).toEqual([]);
    expect((await runCli(["call", PETSTORE, "listPets", "--dry-run"], { env: { XDG_CACHE_HOME: home } })).code).toBe(0);
    expect(entries()).toHaveLength(1);
  });

  it("that cannot be written changes nothing but one warning; --debug says why", async () => {
    const fresh = await runCli(["inspect", PETSTORE, "--no-cache"]);
    const blocked = join(work, "not-a-directory");
    writeFileSync(blocked, "");
    const run = await runCli(["inspect", PETSTORE], { env: { XDG_CACHE_HOME: blocked } });
    expect({ ...run, stderr: "" }).toEqual({ ...fresh, stderr: "" });
    expect(run.stderr.replace(fresh.stderr, "")).toMatch(
      /^openapi-mcp: warning: catalog cache: not used: .*not-a-directory.* \(--no-cache skips it\)\n$/,
    );
    const debug = await runCli(["inspect", PETSTORE, "--debug"], { env: { XDG_CACHE_HOME: blocked } });
    expect(debug.code).toBe(0);
    expect(debug.stderr).toMatch(/^openapi-mcp: catalog cache: not used: .*not-a-directory/m);
  });

  it("that cannot be written does not stop a server: it serves what a fresh start serves and warns once", async () => {
    const blocked = join(work, "not-a-directory");
    writeFileSync(blocked, "");
    const fresh = await listing([PETSTORE, "--no-cache"]);
    const served = await listing([PETSTORE], { XDG_CACHE_HOME: blocked });
    expect(served.pages).toEqual(fresh.pages);
    expect(served.stderr.match(/warning: catalog cache/g)).toHaveLength(1);
  });

  it("filled by several starts at once holds one whole entry", async () => {
    mkdirSync(join(home, "openapi-mcp"), { mode: 0o700 });
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => runCli(["inspect", PETSTORE, "--json"], { env: { XDG_CACHE_HOME: home } })),
    );
    for (const run of runs) expect(run).toEqual(runs[0]);
    expect(entries()).toEqual([expect.stringMatching(/\.catalog$/)]);
    const debug = await runCli(["inspect", PETSTORE, "--json", "--debug"], { env: { XDG_CACHE_HOME: home } });
    expect(debug.stderr).toMatch(/^openapi-mcp: catalog cache: using /);
    expect(debug.stdout).toBe(runs[0]!.stdout);
  });
});
