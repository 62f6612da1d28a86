// The runtime a generated project carries: the engine, the MCP binding, the settings reader and the catalog modules
// they use, copied byte for byte from this package's own sources, so there is one implementation (a test compares
// the copies). The settings file's schema comes along, where the reader looks for it (`schemas/`).

import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

/** This package's `src/`, next to `dist/` (the package ships both). */
const SOURCE_ROOT = fileURLToPath(new URL("../../src/", import.meta.url));
const SCHEMA_ROOT = fileURLToPath(new URL("../../schemas/", import.meta.url));

/** What a generated server starts from; everything they import is copied along. */
export const RUNTIME_ENTRIES = [
  "runtime/start.ts",
  "runtime/view.ts",
  "runtime/modes/dynamic.ts",
  "runtime/modes/code-mode.ts",
  "runtime/profiles/profiled.ts",
  "runtime/settings.ts",
  "runtime/credentials/user-credential-modes.ts",
  "runtime/shared/shared-state.ts",
  // Code mode's sandbox; its worker is started from a file, not imported, so it is named here.
  "runtime/modes/sandbox/run-script.ts",
  "runtime/modes/sandbox/worker.ts",
  // The MCP binding, as the project's src/index.ts takes it.
  "server/command-line.ts",
  "server/http.ts",
  "server/options.ts",
  "server/stdio.ts",
  "load/settings.ts",
];

/** The JSON Schemas the copied reader checks files against, relative to the project's root. */
export function runtimeSchemas(): SourceFile[] {
  return ["settings.schema.json"].map((name) => ({
    path: `schemas/${name}`,
    content: readFileSync(join(SCHEMA_ROOT, name), "utf8"),
  }));
}

export interface SourceFile {
  /** Relative to `src/`, e.g. `runtime/engine.ts`. */
  path: string;
  content: string;
}

/** The entries and every file they import, relative to `src/`, in a stable order. */
export function runtimeSources(entries: string[] = RUNTIME_ENTRIES): SourceFile[] {
  const found = new Map<string, string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (found.has(path)) continue;
    const content = readFileSync(join(SOURCE_ROOT, path), "utf8");
    found.set(path, content);
    for (const match of content.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)\.js["']/g)) {
      const target = normalize(join(dirname(path), `${match[1]}.ts`));
      if (target.startsWith("..")) throw new Error(`runtime file ${path} imports ${match[1]}, outside src/`);
      pending.push(target);
    }
  }
  return [...found].map(([path, content]) => ({ path, content })).sort((a, b) => (a.path < b.path ? -1 : 1));
}
