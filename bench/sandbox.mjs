// Code mode's sandbox (src/runtime/modes/sandbox): what a run costs before the script does anything, and what each
// `api` call adds. Start: runScript("return 1") from the call to its outcome on a warm pool (a fresh WebAssembly
// instance, QuickJS runtime and context, the prelude, the script, the JSON copy out). Per call: a script making
// N sequential api calls against an api that answers at once, minus the same script making none, over N.
// Medians of --rounds; targets from issue 17: start ≤ 20 ms, ≤ 1 ms p50 per call.
//
// Run: npm run bench:sandbox   (or npm run build && node bench/sandbox.mjs [--rounds 200] [--calls 100])

import { parseArgs } from "node:util";
import { runScript, warmSandbox } from "../dist/runtime/modes/sandbox/run-script.js";
import { printMachine, recordSummary } from "./report.mjs";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "200" }, calls: { type: "string", default: "100" } },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const tools = ["issues_list"];
const api = async ({ args }) => ({ ok: true, value: { items: [{ id: 1, title: "a bug", args }] } });

async function timed(code) {
  const started = performance.now();
  const outcome = await runScript({ code, tools, api });
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
  return performance.now() - started;
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const p90 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length * 0.9)];

printMachine();
await warmSandbox();
for (let i = 0; i < 20; i++) await timed("return 1;");

const start = [];
for (let i = 0; i < rounds; i++) start.push(await timed("return 1;"));

const loop = (n) =>
  `let total = 0; for (let i = 0; i < ${n}; i++) total += (await api.issues_list({ page: i })).items.length; return total;`;
const perCall = [];
for (let i = 0; i < Math.max(20, Math.floor(rounds / 5)); i++) {
  const none = await timed(loop(0));
  const many = await timed(loop(calls));
  perCall.push((many - none) / calls);
}

const ms = (x) => `${x.toFixed(3)} ms`;
console.log(
  `sandbox start (runScript "return 1", warm pool): p50 ${ms(median(start))}, p90 ${ms(p90(start))} (target ≤ 20 ms)`,
);
console.log(
  `added cost per api call (${calls} sequential calls): p50 ${ms(median(perCall))}, p90 ${ms(p90(perCall))} (target ≤ 1 ms)`,
);
recordSummary({
  bench: "sandbox",
  measure: "code mode: sandbox start p50 (warm pool)",
  value: ms(median(start)),
  target: "≤ 20 ms",
  met: median(start) <= 20,
});
recordSummary({
  bench: "sandbox",
  measure: "code mode: added cost per api call p50",
  value: ms(median(perCall)),
  target: "≤ 1 ms",
  met: median(perCall) <= 1,
});
