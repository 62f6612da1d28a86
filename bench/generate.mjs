// `openapi-mcp generate` on GitHub's spec (1,000+ operations): the wall time of the command as a user runs it, from
// spawning `node dist/cli.js generate` to its exit, against the floor of a Node process that reads and parses the
// spec and writes as many bytes; alternated so machine drift hits both alike; medians. A third process times the
// phases (load, render, write). Then the generated project's strict `tsc` run, once, for the record
// (it must pass: the figure says what a team's first build costs). Run with `npm run bench:generate`.
//
// Options: --runs N  runs instead of 5.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { GITHUB_SPEC } from "./corpus-check.mjs";
import { median, printMachine, recordSummary } from "./report.mjs";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const CHILD = new URL("./generate-child.mjs", import.meta.url).pathname;
const ROOT = new URL("..", import.meta.url).pathname;
const TARGET_MS = 1_000;

function measure(...childArgs) {
  return JSON.parse(
    execFileSync(process.execPath, [CHILD, ...childArgs], { encoding: "utf8" })
      .trim()
      .split("\n")
      .at(-1),
  );
}

/** Wall time of a process, spawn to exit. */
function wall(args) {
  const started = performance.now();
  execFileSync(process.execPath, args, { stdio: "ignore" });
  return performance.now() - started;
}

printMachine();
console.log(
  "Each figure: median wall time of fresh processes; floor = node reads + JSON.parses the spec, writes as many bytes.",
);
console.log();

const work = mkdtempSync(join(tmpdir(), "bench-generate-"));
const CLI = join(ROOT, "dist/cli.js");
const runs = [];
const commands = [];
const floors = [];
for (let i = 0; i < Number(args.runs); i++) {
  runs.push(measure("generate", GITHUB_SPEC, join(work, `phases-${i}`)));
  // --no-cache: a generate that builds the catalog, as the first one does (and no entry left in the user's cache).
  commands.push(wall([CLI, "generate", GITHUB_SPEC, "--out", join(work, `run-${i}`), "--no-cache"]));
  floors.push(wall([CHILD, "floor", GITHUB_SPEC, join(work, `floor-${i}`), String(runs[0].bytes)]));
  process.stderr.write(
    `run ${i + 1}/${args.runs}: ${Math.round(commands.at(-1))} ms, floor ${Math.round(floors.at(-1))} ms\n`,
  );
}

const project = join(work, "run-0");
symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
const tscStarted = performance.now();
let tsc = "passes";
try {
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", project, "--noEmit"], {
    encoding: "utf8",
    stdio: "pipe",
  });
} catch (error) {
  tsc = `FAILS: ${String(error.stdout).split("\n").slice(0, 3).join(" | ")}`;
}
const tscMs = performance.now() - tscStarted;

const ms = median(commands);
const floor = median(floors);
const first = runs[0];
console.log(
  `GitHub (api.github.com): ${first.tools} tools → ${first.files} files, ${(first.bytes / 2 ** 20).toFixed(1)} MiB`,
);
console.log(
  `  generate ${Math.round(ms)} ms (phases: start-up ${Math.round(median(runs.map((r) => r.startMs)))}, load ${Math.round(median(runs.map((r) => r.loadMs)))}, ` +
    `render ${Math.round(median(runs.map((r) => r.renderMs)))}, write ${Math.round(median(runs.map((r) => r.writeMs)))})`,
);
console.log(
  `  floor ${Math.round(floor)} ms · ratio ${(ms / floor).toFixed(2)}× · target ≤ ${TARGET_MS} ms: ${ms <= TARGET_MS ? "met" : "NOT MET"}`,
);
console.log(`  tsc --strict --noEmit on the project: ${tsc} in ${Math.round(tscMs)} ms`);
recordSummary({
  bench: "generate",
  measure: "GitHub: `generate`, spawn to exit",
  value: `${Math.round(ms)} ms`,
  floor: `${Math.round(floor)} ms (${(ms / floor).toFixed(2)}×)`,
  target: `≤ ${TARGET_MS} ms`,
  met: ms <= TARGET_MS,
});
recordSummary({
  bench: "generate",
  measure: "GitHub project: tsc --strict",
  value: tsc === "passes" ? `passes, ${Math.round(tscMs)} ms` : "fails",
  target: "passes",
  met: tsc === "passes",
});
rmSync(work, { recursive: true, force: true });
