// Scoring tool search against the task set (bench/fixtures/github-search-tasks.json): for each task, where the
// first expected tool ranks. Shared by bench/search.mjs and the quality test, which pass their own search.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const TASKS_FILE = `${root}bench/fixtures/github-search-tasks.json`;
/** What the issue asks of search over GitHub's spec. */
export const TARGETS = { top1: 0.7, top5: 0.9 };

/** The task set: `{ spec, tasks: [{ task, expected: [tool names] }] }`, `spec` made absolute. */
export function readTasks() {
  const data = JSON.parse(readFileSync(TASKS_FILE, "utf8"));
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
