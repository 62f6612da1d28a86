// bench/call.mjs's tables: each row's medians over rounds and its ratios to the direct request, then CPU per call;
// and the lines of `npm run bench`'s summary (ours in either era, beside the SDK v2 floor of the same era).

import { printTable } from "./call-measure.mjs";
import { median, recordSummary } from "./report.mjs";

/** Issue 3's targets, as ratios to the direct request. */
const TARGETS = { p50: 1.8, perSecond: 0.65 };

export function report({ subjects, figures, concurrency }) {
  const pick = (name, read) => median(figures.get(name).map(read));
  const ms = (v) => `${v.toFixed(3)} ms`;
  const ratio = (name, key) => pick(name, (f) => f[key]) / pick("direct", (f) => f[key]);
  const table = [
    ["", "p50", "÷ direct", "p99", `calls/s, ${concurrency} in flight`, "÷ direct", "p50 loaded", "p99 loaded"],
  ];
  for (const { name, label } of subjects) {
    const get = (key) => pick(name, (f) => f[key]);
    table.push([
      label,
      ms(get("p50")),
      `${ratio(name, "p50").toFixed(2)}x`,
      ms(get("p99")),
      Math.round(get("perSecond")).toLocaleString("en-US"),
      `${ratio(name, "perSecond").toFixed(2)}x`,
      ms(get("loadP50")),
      ms(get("loadP99")),
    ]);
  }
  printTable(table);

  console.log();
  console.log(`CPU time per call at ${concurrency} in flight (µs, user + system, from /proc; 10 ms ticks):`);
  const cpu = [["", "client process", "server", "upstream", "all"]];
  for (const { name, label } of subjects) {
    const [client, server, up] = ["client", "server", "upstream"].map((key) => pick(name, (f) => f.cpu[key]));
    cpu.push([label, client, name === "direct" ? "-" : server, up, client + (name === "direct" ? 0 : server) + up]);
  }
  printTable(cpu.map((r, i) => (i === 0 ? r : r.map((v, j) => (j === 0 || v === "-" ? v : Math.round(v))))));

  const has = (name) => subjects.some((s) => s.name === name);
  for (const era of ["2025", "2026"]) {
    const ours = `ours-${era}`;
    const floor = `floor-${era}`;
    if (!has(ours)) continue;
    const eraName = era === "2025" ? "2025-11-25" : "2026-07-28";
    for (const [key, measure, target, met] of [
      ["p50", "p50 one at a time", `≤ ${TARGETS.p50}×`, (r) => r <= TARGETS.p50],
      ["perSecond", `calls/s at ${concurrency} in flight`, `≥ ${TARGETS.perSecond}×`, (r) => r >= TARGETS.perSecond],
    ]) {
      recordSummary({
        bench: "call",
        measure: `${measure}, ours / direct undici, ${eraName} client`,
        value: `${ratio(ours, key).toFixed(2)}×`,
        floor: has(floor) ? `SDK v2 floor ${ratio(floor, key).toFixed(2)}×` : "",
        target,
        met: met(ratio(ours, key)),
      });
    }
  }
}
