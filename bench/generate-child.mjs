// Helpers of bench/generate.mjs, each run in a fresh process. `generate <spec> <out>`: load, render and write the
// project, timing each phase; `floor <spec> <out> <bytes>`: only read and parse the spec and write as many bytes,
// which no generator can beat. Prints one JSON line: ms since process start per phase, and what was written.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [mode, spec, out, bytes] = process.argv.slice(2);
let figures;
if (mode === "generate") {
  const { loadCatalog } = await import("../dist/load/index.js");
  const { renderProject } = await import("../dist/generate/render.js");
  const { writeProject } = await import("../dist/generate/write.js");
  const started = performance.now();
  const catalog = await loadCatalog(spec);
  const loaded = performance.now();
  const files = renderProject({ catalog });
  const rendered = performance.now();
  writeProject({ out, files, generator: "bench" });
  const written = performance.now();
  figures = {
    tools: catalog.tools.length,
    files: files.length,
    bytes: files.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0),
    startMs: started,
    loadMs: loaded - started,
    renderMs: rendered - loaded,
    writeMs: written - rendered,
  };
} else if (mode === "floor") {
  JSON.parse(readFileSync(spec, "utf8"));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "output"), Buffer.alloc(Number(bytes), "x"));
  figures = {};
} else {
  throw new Error("usage: generate-child.mjs generate|floor <spec> <out> [bytes]");
}
console.log(JSON.stringify({ ...figures, ms: performance.now() }));
