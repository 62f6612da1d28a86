// The catalog cache: a catalog built once is used again while everything that shaped it is unchanged, and never
// when anything is: the source, a file it refers to, the options, a ${VAR} it read. An entry that is cut, garbled,
// of another version or altered is ignored and written again; a cache that cannot be written is no error.

import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cacheDirectory } from "../../src/load/cache-dir.js";
import { cacheKey, codeFingerprint } from "../../src/load/cache-key.js";
import { type CacheOptions, loadCatalogCached } from "../../src/load/cache.js";
import { digestOf } from "../../src/load/recorded-reads.js";
import type { LoadOptions } from "../../src/load/sources.js";
import { loadCatalog } from "../../src/load/index.js";
import { example, fixture } from "../support/fixtures.js";

const PETSTORE = example("petstore.openapi.yaml");

let dir: string;
let work: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-cache-"));
  work = mkdtempSync(join(tmpdir(), "catalog-cache-sources-"));
});
afterEach(() => {
  chmodSync(dir, 0o700);
  rmSync(dir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

function load(source: string | string[], options: LoadOptions & CacheOptions = {}) {
  return loadCatalogCached(source, { cacheDir: dir, ...options });
}

async function loadAndKeep(source: string | string[], options: LoadOptions & CacheOptions = {}) {
  const loaded = await load(source, options);
  await loaded.keep();
  return loaded;
}

const entries = (): string[] => readdirSync(dir).filter((name) => name.endsWith(".catalog"));

describe("the catalog cache", () => {
  it("gives the catalog built the first time on the next load, equal to a fresh build", async () => {
    expect((await loadAndKeep(PETSTORE)).fromCache).toBe(false);
    const again = await load(PETSTORE);
    expect(again.fromCache).toBe(true);
    expect(again.catalog).toEqual(await loadCatalog(PETSTORE));
  });

  it("keeps the tools/list entries it is given and gives them back", async () => {
    const first = await load(PETSTORE);
    const listing = first.catalog.tools.map((tool) => JSON.stringify({ name: tool.name, title: tool.title }));
    await first.keep(listing);
    const again = await load(PETSTORE);
    expect(again.listing?.map((line) => line.toString())).toEqual(listing);
  });

  it("builds again when the source changed", async () => {
    const source = join(work, "petstore.openapi.yaml");
    cpSync(PETSTORE, source);
    await loadAndKeep(source);
    writeFileSync(source, readFileSync(source, "utf8").replace("newest first", "oldest first"));
    const again = await load(source);
    expect(again.fromCache).toBe(false);
    expect(JSON.stringify(again.catalog)).toContain("oldest first");
  });

  it("builds again when a file the source refers to changed", async () => {
    cpSync(fixture("refs/local"), work, { recursive: true });
    const source = join(work, "spec.yaml");
    expect((await loadAndKeep(source)).catalog.tools[0]?.outputSchema?.description).toBe(
      "A pet, defined in schemas/pet.yaml.",
    );
    expect((await load(source)).fromCache).toBe(true);
    const pet = join(work, "schemas", "pet.yaml");
    writeFileSync(pet, readFileSync(pet, "utf8").replace("A pet, defined in schemas/pet.yaml.", "A pet, changed."));
    const again = await load(source);
    expect(again.fromCache).toBe(false);
    expect(again.catalog.tools[0]?.outputSchema?.description).toBe("A pet, changed.");
  });

  it("builds again when the options that shape the catalog changed, and not for those that do not", async () => {
    await loadAndKeep(PETSTORE);
    expect((await load(PETSTORE, { include: ["method:GET"] })).fromCache).toBe(false);
    expect((await load(PETSTORE, { baseUrl: "https://other.example.com" })).fromCache).toBe(false);
    expect((await load(PETSTORE, { serverVariables: { region: "eu" } })).fromCache).toBe(false);
    expect((await load(PETSTORE, { progress: () => {} })).fromCache).toBe(true);
  });

  it("builds again when a ${VAR} the source read changed", async () => {
    const source = fixture("actions/env-base-url.actions.yaml");
    await loadAndKeep(source, { env: { ENVY_BASE_URL: "https://one.example.com" } });
    expect((await load(source, { env: { ENVY_BASE_URL: "https://one.example.com" } })).fromCache).toBe(true);
    const again = await load(source, { env: { ENVY_BASE_URL: "https://two.example.com" } });
    expect(again.fromCache).toBe(false);
    expect(again.catalog.tools[0]?.operation.serverUrl).toBe("https://two.example.com/v1");
  });

  it("is neither read nor written with cache: false", async () => {
    await loadAndKeep(PETSTORE, { cache: false });
    expect(entries()).toEqual([]);
    await loadAndKeep(PETSTORE);
    expect((await load(PETSTORE, { cache: false })).fromCache).toBe(false);
  });

  it("keeps one entry for the same sources and options: a changed source replaces the old one", async () => {
    const source = join(work, "petstore.openapi.yaml");
    cpSync(PETSTORE, source);
    await loadAndKeep(source);
    writeFileSync(source, readFileSync(source, "utf8").replace("newest first", "oldest first"));
    await loadAndKeep(source);
    expect(entries()).toHaveLength(1);
  });
});

describe("an entry that cannot be trusted", () => {
  /** Rewrites the one entry's bytes. */
  function spoil(change: (bytes: Buffer) => Buffer): void {
    const [name] = entries();
    writeFileSync(join(dir, name!), change(readFileSync(join(dir, name!))));
  }
  /**
   * An entry with its digest made to match a changed body: well-formed, but not of a catalog's shape. Line 2 is the
   * catalog without its schemas and descriptions, line 3 those (cache-entry.ts).
   */
  function reshaped(bytes: Buffer, change: (catalog: Record<string, unknown>) => void, line = 2): Buffer {
    const lines = bytes.toString().split("\n");
    const catalog = JSON.parse(lines[line]!);
    change(catalog);
    lines[line] = JSON.stringify(catalog);
    const body = lines.slice(1).join("\n");
    return Buffer.from(`${lines[0]!.replace(/ [0-9a-f]{64}$/, "")} ${digestOf(body)}\n${body}`);
  }
  type Schemas = { definitions: Record<string, unknown>; tools: unknown[][] };

  it("one from another version of openapi-mcp is not used: its key is another, whether the file is named for it or not", async () => {
    const sources = [{ given: PETSTORE, location: PETSTORE, digest: digestOf(readFileSync(PETSTORE)) }];
    const ours = cacheKey({ sources, options: {} });
    const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version as string;
    expect(codeFingerprint()).not.toBe(version);
    expect(cacheKey({ sources, options: {}, code: `${version}-next` }).key).not.toBe(ours.key);
    // Same sources and options: another version's entry is replaced, not kept beside ours.
    expect(cacheKey({ sources, options: {}, code: `${version}-next` }).identity).toBe(ours.identity);
    // Its entry found under our file name is refused for its key, and rebuilt.
    await loadAndKeep(PETSTORE);
    spoil((bytes) => reshapedHeader(bytes, (header) => (header.key = "0".repeat(64))));
    const notes: string[] = [];
    const again = await loadAndKeep(PETSTORE, { cacheLog: (line) => notes.push(line) });
    expect(again.fromCache).toBe(false);
    expect(notes.join("\n")).toMatch(/not used: it is for another key/);
    expect((await load(PETSTORE)).fromCache).toBe(true);
  });

  /** An entry whose header was changed, digest matching. */
  function reshapedHeader(bytes: Buffer, change: (header: Record<string, unknown>) => void): Buffer {
    const lines = bytes.toString().split("\n");
    const header = JSON.parse(lines[1]!);
    change(header);
    lines[1] = JSON.stringify(header);
    const body = lines.slice(1).join("\n");
    return Buffer.from(`${lines[0]!.replace(/ [0-9a-f]{64}$/, "")} ${digestOf(body)}\n${body}`);
  }

  it.each([
    ["cut short", (bytes: Buffer) => bytes.subarray(0, bytes.length >> 1)],
    ["empty", () => Buffer.alloc(0)],
    ["garbage", () => Buffer.from("\x00\xff not an entry \n{\n[[[\n")],
    [
      "of another format version",
      (bytes: Buffer) => Buffer.from(bytes.toString().replace("catalog cache 2 ", "catalog cache 3 ")),
    ],
    [
      "with one character of its catalog changed",
      (bytes: Buffer) => Buffer.from(bytes.toString().replace("newest first", "newest First")),
    ],
    [
      "whose catalog names a tool no client accepts",
      (bytes: Buffer) => reshaped(bytes, (c) => ((c.tools as Array<{ name: string }>)[0]!.name = "no spaces allowed")),
    ],
    [
      "whose catalog sends a credential that is not there",
      (bytes: Buffer) => reshaped(bytes, (c) => ((c as { credentials: object }).credentials = {})),
    ],
    [
      "whose catalog has a tool with no operation",
      (bytes: Buffer) => reshaped(bytes, (c) => delete (c.tools as Array<Record<string, unknown>>)[0]!.operation),
    ],
    [
      "whose catalog nests a schema 1,000 levels deep",
      (bytes: Buffer) =>
        reshaped(
          bytes,
          (c) =>
            ((c.definitions as Record<string, unknown>).deep = JSON.parse(`${"[".repeat(1000)}${"]".repeat(1000)}`)),
        ),
    ],
    [
      "whose schemas nest 1,000 levels deep",
      (bytes: Buffer) =>
        reshaped(
          bytes,
          (c) => ((c as Schemas).definitions.deep = JSON.parse(`${"[".repeat(1000)}${"]".repeat(1000)}`)),
          3,
        ),
    ],
    [
      "whose schemas give a tool an input schema that is not an object's",
      (bytes: Buffer) => reshaped(bytes, (c) => ((c as Schemas).tools[0]![1] = { type: "string" }), 3),
    ],
    ["whose schemas are one tool short", (bytes: Buffer) => reshaped(bytes, (c) => (c as Schemas).tools.pop(), 3)],
  ])("one %s is not used: the catalog is built again and kept whole", async (_, change) => {
    const notes: string[] = [];
    await loadAndKeep(PETSTORE);
    spoil(change);
    const again = await loadAndKeep(PETSTORE, { cacheLog: (line) => notes.push(line) });
    expect(again.fromCache).toBe(false);
    expect(again.catalog).toEqual(await loadCatalog(PETSTORE));
    expect(notes.join("\n")).toMatch(/not used: /);
    expect((await load(PETSTORE)).fromCache).toBe(true);
  });
});

describe("where the cache is", () => {
  it("is openapi-mcp in $XDG_CACHE_HOME wherever that is set, else where each system keeps caches", () => {
    expect(cacheDirectory({ env: { XDG_CACHE_HOME: "/xdg" }, platform: "darwin", home: "/home/u" })).toBe(
      "/xdg/openapi-mcp",
    );
    expect(cacheDirectory({ env: {}, platform: "linux", home: "/home/u" })).toBe("/home/u/.cache/openapi-mcp");
    expect(cacheDirectory({ env: { XDG_CACHE_HOME: "relative/ignored" }, platform: "linux", home: "/home/u" })).toBe(
      "/home/u/.cache/openapi-mcp",
    );
    expect(cacheDirectory({ env: {}, platform: "darwin", home: "/Users/u" })).toBe(
      "/Users/u/Library/Caches/openapi-mcp",
    );
    expect(
      cacheDirectory({
        env: { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" },
        platform: "win32",
        home: "C:\\Users\\u",
      }),
    ).toMatch(/openapi-mcp[\\/]Cache$/);
    expect(cacheDirectory({ env: {}, platform: "linux", home: "" })).toBeUndefined();
  });

  it("uses $XDG_CACHE_HOME when no directory is given", async () => {
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = dir;
    try {
      await (await loadCatalogCached(PETSTORE)).keep();
      expect(readdirSync(join(dir, "openapi-mcp")).filter((name) => name.endsWith(".catalog"))).toHaveLength(1);
    } finally {
      process.env.XDG_CACHE_HOME = saved;
    }
  });

  it("that cannot be written is no error: the catalog is built, not kept, and the reason told", async () => {
    const file = join(work, "a-file");
    writeFileSync(file, "");
    const notes: string[] = [];
    const loaded = await loadAndKeep(PETSTORE, { cacheDir: join(file, "cache"), cacheLog: (line) => notes.push(line) });
    expect(loaded.catalog).toEqual(await loadCatalog(PETSTORE));
    expect(notes).toEqual([expect.stringContaining("catalog cache: not used:")]);
  });

  it.skipIf(process.platform === "win32")("that others may write to is not used", async () => {
    chmodSync(dir, 0o777);
    const notes: string[] = [];
    await loadAndKeep(PETSTORE, { cacheLog: (line) => notes.push(line) });
    expect(entries()).toEqual([]);
    expect(notes).toEqual([expect.stringMatching(/may be written by other users/)]);
  });

  it("written by many at once holds one whole entry, and no half-written files", async () => {
    const loads = await Promise.all(Array.from({ length: 8 }, () => load(PETSTORE)));
    await Promise.all(loads.map((loaded) => loaded.keep()));
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/\.catalog$/)]);
    expect((await load(PETSTORE)).fromCache).toBe(true);
  });
});
