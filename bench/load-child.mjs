// One measurement for bench/load.mjs, in a fresh process so that start-up, module loading and the heap are all
// counted: `load` imports the library and builds the catalog; `floor` only reads and parses the same file, which
// no loader can beat. Prints one JSON line: ms since process start (performance.now()) and peak RSS.

import { readFileSync } from "node:fs";

const [mode, file] = process.argv.slice(2);
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

let figures;
if (mode === "load") {
  const { loadCatalog } = await import("../dist/load/index.js");
  const catalog = await loadCatalog(file);
  const errors = catalog.diagnostics.filter((d) => d.severity === "error").length;
  figures = { tools: catalog.tools.length, errors };
} else if (mode === "floor") {
  const document = JSON.parse(readFileSync(file, "utf8"));
  let operations = 0;
  for (const item of Object.values(document.paths ?? {})) {
    for (const key of Object.keys(item ?? {})) if (METHODS.has(key)) operations++;
  }
  figures = { operations };
} else {
  throw new Error(`usage: load-child.mjs load|floor <file>`);
}
// Read the clock before anything else happens; maxRSS is in kilobytes.
const ms = performance.now();
const { maxRSS } = process.resourceUsage();
console.log(JSON.stringify({ ...figures, ms, rssMB: maxRSS / 1024 }));
