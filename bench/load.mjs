// Load time and peak memory for large real specs, against the floor of merely reading and parsing the same file.
// Every measurement is a fresh process (bench/load-child.mjs), so Node start-up, module loading and the whole
// heap are counted, as a user running `openapi-mcp serve` pays them. Runs alternate load/floor so that drift in
// machine load hits both alike; the table shows medians. Run with `npm run bench` (it builds first).
//
// Options: --runs N  runs per spec instead of the defaults below (quick tries).

import { execFileSync } from "node:child_process";
import { median, printMachine, recordSummary } from "./report.mjs";
import { parseArgs } from "node:util";
import { DIRECTORY, GITHUB_SPEC } from "./corpus-check.mjs";

const { values: args } = parseArgs({ options: { runs: { type: "string" } } });
const CHILD = new URL("./load-child.mjs", import.meta.url).pathname;

const SPECS = [
  { name: "GitHub (api.github.com)", file: GITHUB_SPEC, runs: 5, target: { ms: 300, mb: 100 } },
  {
    name: "microsoft.com/graph-beta",
    file: `${DIRECTORY}microsoft.com/graph-beta.json`,
    runs: 3,
    target: { ms: 10_000, mb: 1024 },
  },
];

function measure(mode, file) {
  // Node's default flags: a user does not tune the heap to serve a spec. A failure is reported, not hidden.
  try {
    const out = execFileSync(process.execPath, [CHILD, mode, file], { encoding: "utf8", maxBuffer: 1 << 20 });
    return JSON.parse(out.trim().split("\n").at(-1));
  } catch (error) {
    return {
      failed: String(error.stderr ?? error.message)
        .trim()
        .split("\n")
        .slice(-2)
        .join(" | "),
    };
  }
}

printMachine();
console.log(
  "Each figure: median of fresh processes; load = process start → catalog built; floor = start → JSON.parse done.",
);
console.log();

const rows = [];
for (const spec of SPECS) {
  const runs = Number(args.runs ?? spec.runs);
  const load = [];
  const floor = [];
  for (let i = 0; i < runs; i++) {
    load.push(measure("load", spec.file));
    floor.push(measure("floor", spec.file));
    process.stderr.write(
      `${spec.name}: run ${i + 1}/${runs}: ${JSON.stringify(load.at(-1))} ${JSON.stringify(floor.at(-1))}\n`,
    );
  }
  const failed = [...load, ...floor].find((m) => m.failed);
  if (failed) {
    rows.push({ spec, failed: failed.failed });
    continue;
  }
  rows.push({
    spec,
    runs,
    ops: floor[0].operations,
    tools: load[0].tools,
    errors: load[0].errors,
    loadMs: median(load.map((m) => m.ms)),
    floorMs: median(floor.map((m) => m.ms)),
    loadMB: median(load.map((m) => m.rssMB)),
    floorMB: median(floor.map((m) => m.rssMB)),
    range: `${Math.round(Math.min(...load.map((m) => m.ms)))}–${Math.round(Math.max(...load.map((m) => m.ms)))} ms`,
  });
}

const header = [
  "spec",
  "ops/tools",
  "load ms",
  "floor ms",
  "ratio",
  "peak RSS MB",
  "floor RSS MB",
  "ratio",
  "target",
  "met",
];
const table = [header];
for (const row of rows) {
  const { spec } = row;
  const target = `≤ ${spec.target.ms >= 1000 ? `${spec.target.ms / 1000} s` : `${spec.target.ms} ms`}, ≤ ${spec.target.mb >= 1024 ? `${spec.target.mb / 1024} GB` : `${spec.target.mb} MB`}`;
  if (row.failed) {
    table.push([spec.name, "-", "failed", "-", "-", "-", "-", "-", target, "no"]);
    continue;
  }
  const met = [row.loadMs <= spec.target.ms ? "time" : "", row.loadMB <= spec.target.mb ? "memory" : ""];
  recordSummary({
    bench: "load",
    measure: `${spec.name}: load time`,
    value: `${Math.round(row.loadMs)} ms`,
    floor: `${Math.round(row.floorMs)} ms (${(row.loadMs / row.floorMs).toFixed(2)}×)`,
    target: `≤ ${spec.target.ms} ms`,
    met: Boolean(met[0]),
  });
  recordSummary({
    bench: "load",
    measure: `${spec.name}: peak RSS`,
    value: `${Math.round(row.loadMB)} MB`,
    floor: `${Math.round(row.floorMB)} MB (${(row.loadMB / row.floorMB).toFixed(2)}×)`,
    target: `≤ ${spec.target.mb} MB`,
    met: Boolean(met[1]),
  });
  table.push([
    spec.name,
    `${row.ops}/${row.tools}`,
    Math.round(row.loadMs),
    Math.round(row.floorMs),
    `${(row.loadMs / row.floorMs).toFixed(2)}x`,
    Math.round(row.loadMB),
    Math.round(row.floorMB),
    `${(row.loadMB / row.floorMB).toFixed(2)}x`,
    target,
    met.every(Boolean) ? "yes" : `no (${met.every((m) => !m) ? "time, memory" : met[0] ? "memory" : "time"})`,
  ]);
}
const widths = header.map((_, i) => Math.max(...table.map((r) => String(r[i]).length)));
for (const [i, r] of table.entries()) {
  console.log(
    r.map((cell, j) => (j === 0 ? String(cell).padEnd(widths[j]) : String(cell).padStart(widths[j]))).join("  "),
  );
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
console.log();
for (const row of rows) {
  if (row.failed) console.log(`${row.spec.name}: failed: ${row.failed}`);
  else {
    const note = row.errors ? `, ${row.errors} error diagnostics` : "";
    console.log(`${row.spec.name}: ${row.runs} runs, load ${row.range}${note}`);
  }
}
