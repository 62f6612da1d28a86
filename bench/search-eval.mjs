// Scoring tool search against a task set (bench/fixtures/*-search-tasks.json): for each task, where the first
// expected tool ranks. Shared by bench/search.mjs and the quality test, which pass their own search.
//
// Three sets: GitHub's, which the search was tuned on, and Stripe's and Kubernetes', written before any change made
// for them and never used to tune (only their totals are looked at), so they measure how the search holds on APIs it
// was not fitted to.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const fixture = (name) => `${root}bench/fixtures/${name}-search-tasks.json`;

/** Each set with what it must reach: the targets (GitHub's: not below its figures when the others were written). */
export const TASK_SETS = [
  { name: "GitHub", file: fixture("github"), tuned: true, targets: { top1: 0.7, top5: 0.9 } },
  { name: "Stripe", file: fixture("stripe"), tuned: false, targets: { top1: 0.75, top5: 0.95 } },
  { name: "Kubernetes", file: fixture("kubernetes"), tuned: false, targets: { top1: 0.75, top5: 0.95 } },
];
export const TASKS_FILE = TASK_SETS[0].file;
export const TARGETS = TASK_SETS[0].targets;

/** A task set: `{ spec, tasks: [{ task, expected: [tool names] }] }`, `spec` made absolute. */
export function readTasks(file = TASKS_FILE) {
  const data = JSON.parse(readFileSync(file, "utf8"));
  return { spec: `${root}${data.spec}`, tasks: data.tasks };
}

/**
 * `search(query)` returns tool names, best first (at least five). A task counts as a hit at rank r when any of
 * its expected tools is at rank r or better.
 */
export function evaluate({ tasks, search }) {
  const results = tasks.map(({ task, expected }) => {
    const found = search(task);
    const ranks = expected.map((name) => found.indexOf(name)).filter((at) => at >= 0);
    return { task, expected, rank: ranks.length > 0 ? Math.min(...ranks) + 1 : undefined, found: found.slice(0, 5) };
  });
  const within = (k) => results.filter((r) => r.rank !== undefined && r.rank <= k).length / results.length;
  return {
    total: results.length,
    top1: within(1),
    top5: within(5),
    results,
    misses: results.filter((r) => r.rank !== 1),
  };
}
