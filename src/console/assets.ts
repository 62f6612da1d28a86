// The console's files: its pages (src/console/ui, plain ES modules and one stylesheet, no build step) and the UI
// library, preact with its hooks and htm, taken from node_modules where Node resolves them at run time. Which paths
// exist is fixed at start (the files of src/console/ui and the three library modules): any other path is a 404 that
// leaves nothing behind (the cache once kept every path asked for, misses included: unique long names, ~17 KB each,
// exhausted a 256 MB heap in ~15,000 requests). A file is read on its first request, and kept. A page imports the
// library by relative URL (`../vendor/preact.mjs`): an import map would be an inline script, which the
// Content-Security-Policy forbids.

import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** src/console/ui from here, whether here is src/console (tests) or dist/console (the built CLI). */
const UI = new URL("../../src/console/ui/", import.meta.url);
const PAGE_FILE = /^[a-z][a-z-]*\.(js|css)$/;
const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
const MODULE_TYPE = TYPES.js!;

/** The library's modules by the name pages import them as, and where Node finds them. */
const VENDOR: Record<string, string> = {
  "preact.mjs": "preact",
  "hooks.mjs": "preact/hooks",
  "htm.mjs": "htm",
};

export interface Asset {
  type: string;
  text: string;
}

export class ConsoleAssets {
  /** Every path served, `/assets/<file>` or `/vendor/<file>`, and how to read it: fixed at start. */
  private readonly files = new Map<string, () => Promise<Asset>>();
  /** What was read, by path: never more entries than `files`. */
  private readonly read = new Map<string, Promise<Asset | undefined>>();

  constructor() {
    for (const name of readdirSync(UI)) {
      const type = TYPES[name.split(".").pop() ?? ""];
      if (type && PAGE_FILE.test(name))
        this.files.set(`/assets/${name}`, async () => ({ type, text: await readFile(new URL(name, UI), "utf8") }));
    }
    for (const [name, specifier] of Object.entries(VENDOR))
      this.files.set(`/vendor/${name}`, async () => {
        const text = await readFile(fileURLToPath(import.meta.resolve(specifier)), "utf8");
        // The hooks import preact by its package name, which a browser cannot resolve without an import map.
        return { type: MODULE_TYPE, text: text.replaceAll(/from\s*["']preact["']/g, 'from"./preact.mjs"') };
      });
  }

  /** `/assets/<file>` (a page) or `/vendor/<file>` (the library); undefined when there is no such file. */
  get(path: string): Promise<Asset | undefined> {
    const load = this.files.get(path);
    if (!load) return Promise.resolve(undefined);
    let found = this.read.get(path);
    if (!found) {
      found = load().catch(() => {
        // Gone since the start (a reinstall under way?): tried again next time rather than kept as missing.
        this.read.delete(path);
        return undefined;
      });
      this.read.set(path, found);
    }
    return found;
  }
}
