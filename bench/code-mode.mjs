// What code mode saves a model on multi-step work: each task of bench/code-mode-tasks.mjs run for real by its
// reference plan in tools, dynamic and code mode (bench/code-mode-agent.mjs), against `serve` (a child process, the
// SDK's Client over stdio) and the local GitHub (bench/github-upstream.mjs, seed 1, reset before each run). Tokens
// = bytes / 4 of what the plan puts in the model's context: the listing (tools/list) + the requests it writes + the
// results it reads. Checks that each mode sent the upstream the same writes (and reads) and came to the same
// answer, and that every response the upstream sent passes the project's own output validation.
//
// Run: npm run bench:code-mode   (--modes tools,dynamic,code  --tasks id,id  to run part of it)

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { printTable, sameAnswers, sameEffects } from "./code-mode-report.mjs";
import { runTasks } from "./code-mode-run.mjs";
import { TASKS } from "./code-mode-tasks.mjs";
import { startGithubUpstream } from "./github-upstream.mjs";
import { median, printMachine, recordSummary } from "./report.mjs";

const { values: options } = parseArgs({
  options: { modes: { type: "string", default: "tools,dynamic,code" }, tasks: { type: "string" } },
});
const MODES = options.modes.split(",");
const tasks = options.tasks ? TASKS.filter((t) => options.tasks.split(",").includes(t.id)) : TASKS;

printMachine();
const upstream = await startGithubUpstream({ seed: 1 });
const { runs, skipped, notes } = await runTasks({
  modes: MODES,
  tasks,
  upstream,
  env: { XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "bench-code-mode-")) },
});
await upstream.close();
for (const [mode, reason] of Object.entries(skipped)) console.log(`${mode} mode: not run (${reason})`);
for (const note of notes) console.log(`  note, ${note}`);

printTable({ runs, tasks, modes: MODES.filter((m) => !skipped[m]) });
const problems = [...sameEffects({ runs, tasks }), ...sameAnswers({ runs, tasks })];
for (const problem of problems) console.log(`DIFFERENT: ${problem}`);
if (problems.length === 0)
  console.log("Upstream effects: the same writes and reads in every mode, for every task; the same answers.");
console.log(
  `Upstream responses: ${upstream.served} checked with the engine's validator, ${upstream.invalid.length} refused${upstream.invalid.length ? `: ${JSON.stringify(upstream.invalid.slice(0, 3))}` : ""}.`,
);

const medianOf = (mode) => median(runs.filter((r) => r.mode === mode).map((r) => r.total));
const ratio = (a, b) => medianOf(a) / medianOf(b);
const n = (value) => Math.round(value).toLocaleString("en-US");
for (const mode of MODES.filter((m) => !skipped[m])) console.log(`median ${mode}: ${n(medianOf(mode))} tokens`);
if (!skipped.code && MODES.includes("code")) {
  for (const [other, target] of [
    ["tools", 10],
    ["dynamic", 5],
  ]) {
    if (!MODES.includes(other)) continue;
    const value = ratio(other, "code");
    console.log(`${other} / code: ${value.toFixed(1)}× (target ≥ ${target}×: ${value >= target ? "met" : "NOT MET"})`);
    recordSummary({
      bench: "code-mode",
      measure: `${tasks.length} GitHub tasks: median tokens, ${other} mode / code mode`,
      value: `${value.toFixed(1)}× (${n(medianOf(other))} / ${n(medianOf("code"))})`,
      target: `≥ ${target}×`,
      met: value >= target && problems.length === 0,
    });
  }
} else if (MODES.includes("tools") && MODES.includes("dynamic")) {
  console.log(
    `tools / dynamic: ${ratio("tools", "dynamic").toFixed(1)}× (code mode not run: ${skipped.code ?? "not asked"})`,
  );
}
process.exitCode = problems.length > 0 || upstream.invalid.length > 0 ? 1 : 0;
