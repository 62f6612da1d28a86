// What `serve` loads before its first answers: a client that starts a server and lists its tools waits for
// nothing it does not need. The HTTP client and the schema compiler wait for the first call; a catalog from the
// cache needs neither the document parsers nor the schema converter.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI } from "../support/cli.js";
import { example } from "../support/fixtures.js";
import { startPeer } from "../support/stdio-peer.js";

const RECORDER = fileURLToPath(new URL("../support/module-recorder.mjs", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cold-start-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The modules a server loaded in a session that only listed its tools. */
async function loadedBy(args: string[]): Promise<string[]> {
  const record = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const peer = await startPeer({
    command: process.execPath,
    args: ["--import", RECORDER, CLI, "serve", ...args],
    env: { LOADED_MODULES: record, XDG_CACHE_HOME: dir, API_KEY_API_KEY: "k-123456" },
  });
  await peer.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "cold-start", version: "0" },
  });
  peer.notify("notifications/initialized");
  const listed = JSON.parse(await peer.request("tools/list")) as { result: { tools: unknown[] } };
  expect(listed.result.tools.length).toBeGreaterThan(0);
  await peer.close();
  const loaded = readFileSync(record, "utf8").split("\n").filter(Boolean);
  // The record holds what it should: the SDK (an ES module) and commander (CommonJS).
  expect(loaded.some((module) => /@modelcontextprotocol[\\/]server[\\/]dist[\\/]index\.mjs$/.test(module))).toBe(true);
  expect(loaded.some((module) => /[\\/]commander[\\/]index\.js$/.test(module))).toBe(true);
  return loaded;
}

describe("before the first call", () => {
  it("a server loads neither the HTTP client nor the schema compiler", async () => {
    const loaded = await loadedBy([example("petstore.openapi.yaml")]);
    expect(loaded.filter((module) => /[\\/]undici[\\/]|[\\/]ajv[\\/]dist[\\/]2020\.js$/.test(module))).toEqual([]);
  });

  it("a server whose catalog is in the cache loads no document parser and no schema converter", async () => {
    const source = example("petstore.openapi.yaml");
    await loadedBy([source]);
    const loaded = await loadedBy([source]);
    expect(
      loaded.filter((module) =>
        /[\\/]yaml[\\/]|json-schema-ref-parser|[\\/]load[\\/]index\.js$|[\\/]schema[\\/]convert\.js$/.test(module),
      ),
    ).toEqual([]);
  });
});
