// What every benchmark prints and computes alike: the machine it ran on, and medians over rounds.

import { appendFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The machine and Node version, and how busy the machine was at the start (the figures are noisy otherwise). */
export function printMachine() {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(`Machine: ${cpu}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM`);
  console.log(
    `Node ${process.version}, load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

/**
 * One line of the overall table `npm run bench` prints at the end (bench/all.mjs): appended as JSON to the file
 * named by $BENCH_SUMMARY, when there is one. `value` as shown; `met` true, false or undefined (no target).
 */
export function recordSummary({ bench, measure, value, floor = "", target = "", met }) {
  const file = process.env.BENCH_SUMMARY;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ bench, measure, value, floor, target, met })}\n`);
}
