// Dependencies point one way: cli → library entry → {load, runtime, generate, server} → catalog. The catalog is
// pure; the runtime (copied into generated projects) never reaches for the loader, generator or CLI; only the
// MCP binding talks to the SDK.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Each import of a file: the specifier and, for relative ones, the top-level module of src it lands in. */
function imports(file: string): Array<{ specifier: string; module?: string }> {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => {
    if (!specifier.startsWith(".")) return { specifier };
    const target = relative(SRC, resolve(dirname(file), specifier));
    return { specifier, module: target.split("/")[0]!.replace(/\.js$/, "") };
  });
}

function moduleOf(file: string): string {
  return relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");
}

const FORBIDDEN: Record<string, string[]> = {
  catalog: ["load", "runtime", "server", "generate", "cli", "index", "inspect", "console"],
  runtime: ["load", "generate", "cli", "server", "index", "inspect", "console"],
  load: ["runtime", "server", "generate", "cli", "index", "inspect"],
  inspect: ["load", "runtime", "server", "generate", "cli", "index"],
  // The generator renders a catalog it is given; it reads the runtime's sources as text, never imports them.
  generate: ["load", "runtime", "server", "cli", "index", "inspect"],
  // Generated projects carry src/server without the console: the server only mounts what it is given.
  server: ["console"],
  // The console (serve-only) uses the engine and the catalog; the server mounts it through runtime/http-route.ts.
  console: ["load", "generate", "cli", "index", "inspect", "server", "setup", "serve"],
};

describe("layering", () => {
  const files = sourceFiles(SRC);

  it("finds the source files it checks", () => {
    expect(files.filter((f) => moduleOf(f) === "catalog").length).toBeGreaterThan(5);
  });

  it.each(Object.entries(FORBIDDEN))("%s imports nothing from %j", (module, forbidden) => {
    const offending = files
      .filter((file) => moduleOf(file) === module)
      .flatMap((file) =>
        imports(file)
          .filter((i) => i.module && forbidden.includes(i.module))
          .map((i) => `${relative(SRC, file)} → ${i.specifier}`),
      );
    expect(offending).toEqual([]);
  });

  it("keeps the catalog free of I/O", () => {
    const io = /^(node:)?(fs|fs\/promises|http|https|net|child_process|undici)$/;
    const offending = files
      .filter((file) => moduleOf(file) === "catalog")
      .flatMap((file) =>
        imports(file)
          .filter((i) => io.test(i.specifier))
          .map((i) => `${relative(SRC, file)} → ${i.specifier}`),
      );
    expect(offending).toEqual([]);
  });

  it("keeps every MCP SDK import in src/server", () => {
    const offending = files
      .filter((file) => moduleOf(file) !== "server")
      .flatMap((file) =>
        imports(file)
          .filter((i) => /^@modelcontextprotocol\/(sdk|server|client|core)(\/|$)/.test(i.specifier))
          .map((i) => `${relative(SRC, file)} → ${i.specifier}`),
      );
    expect(offending).toEqual([]);
  });
});
