// `npm run bench`: every benchmark in turn (each prints its own details), then one table of the headline figures
// with their floors and targets, gathered through $BENCH_SUMMARY. Figures are medians of this run on this machine.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printMachine } from "./report.mjs";

const BENCHES = [
  "load",
  "call",
  "generate",
  "search",
  "tokens",
  "sessions",
  "slow-bodies",
  "console-floods",
  "attacks",
  "mask-oracle",
  "inflight",
  "code-mode",
  "sandbox",
  "sandbox-flood",
  "first-render",
];
const summary = join(mkdtempSync(join(tmpdir(), "bench-")), "summary.jsonl");
writeFileSync(summary, "");

for (const bench of BENCHES) {
  console.log(`\n=== ${bench} ===`);
  execFileSync(process.execPath, [new URL(`./${bench}.mjs`, import.meta.url).pathname], {
    stdio: "inherit",
    env: { ...process.env, BENCH_SUMMARY: summary },
  });
}

const rows = readFileSync(summary, "utf8")
  .trim()
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const table = [
  ["bench", "measure", "value", "floor / beside", "target", "met"],
  ...rows.map((r) => [
    r.bench,
    r.measure,
    r.value,
    r.floor,
    r.target,
    r.met === undefined ? "-" : r.met ? "yes" : "NO",
  ]),
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => String(row[i]).length)));
console.log("\n=== summary ===");
printMachine();
for (const [i, row] of table.entries()) {
  console.log(
    row
      .map((cell, j) => String(cell).padEnd(widths[j]))
      .join("  ")
      .trimEnd(),
  );
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
