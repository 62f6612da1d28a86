// The console's files: its pages (src/console/ui, plain ES modules and one stylesheet, no build step) and the UI
// library, preact with its hooks and htm, taken from node_modules where Node resolves them at run time. Read once,
// on first request. A page imports the library by relative URL (`../vendor/preact.mjs`): an import map would be an
// inline script, which the Content-Security-Policy forbids.

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** src/console/ui from here, whether here is src/console (tests) or dist/console (the built CLI). */
const UI = new URL("../../src/console/ui/", import.meta.url);
const PAGE_FILE = /^[a-z][a-z-]*\.(js|css)$/;
const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

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
  private readonly cache = new Map<string, Promise<Asset | undefined>>();

  /** `/assets/<file>` (a page) or `/vendor/<file>` (the library); undefined when there is no such file. */
  get(path: string): Promise<Asset | undefined> {
    let found = this.cache.get(path);
    if (!found) {
      found = this.read(path);
      this.cache.set(path, found);
    }
    return found;
  }

  private async read(path: string): Promise<Asset | undefined> {
    const [, folder, name = ""] = path.split("/");
    const type = TYPES[name.split(".").pop() ?? ""];
    if (!type) return undefined;
    if (folder === "assets" && PAGE_FILE.test(name))
      return readFile(new URL(name, UI), "utf8").then(
        (text) => ({ type, text }),
        () => undefined,
      );
    const specifier = folder === "vendor" && Object.hasOwn(VENDOR, name) ? VENDOR[name] : undefined;
    if (!specifier) return undefined;
    const text = await readFile(fileURLToPath(import.meta.resolve(specifier)), "utf8");
    // The hooks import preact by its package name, which a browser cannot resolve without an import map.
    return { type, text: text.replaceAll(/from\s*["']preact["']/g, 'from"./preact.mjs"') };
  }
}
