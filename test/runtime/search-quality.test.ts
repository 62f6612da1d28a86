// Search quality as the issue states it, on three APIs: over each spec, its task set's requests (phrased as users
// ask, not copied from summaries) find an expected tool first, and among the first five, at least as often as the
// targets say. GitHub's set is the one the search was tuned on (top-1 ≥ 70%, top-5 ≥ 90%, and not below its figures
// when the other sets were written: 76.9% / 94.5%); Stripe's and Kubernetes' were written before any change made for
// them and never tuned on, with the targets for them: top-1 ≥ 75%, top-5 ≥ 95%. The ranking is
// deterministic, so this is a regression test, not a timing one. `npm run bench:search` prints the figures.

import { describe, expect, it } from "vitest";
import { evaluate, readTasks, TASK_SETS } from "../../bench/search-eval.mjs";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { ToolSearch } from "../../src/runtime/modes/search/search.js";

/** What the search reaches now, in percent to one decimal: a floor, so that it does not slip back. */
const REACHED: Record<string, { top1: number; top5: number }> = {
  GitHub: { top1: 83.5, top5: 94.5 },
  Stripe: { top1: 51.5, top5: 80.3 },
  Kubernetes: { top1: 39.7, top5: 60.3 },
};
/** Sets whose targets the search does not meet yet (see docs/modes.md): their target test is expected to fail. */
const SHORT_OF_TARGETS = new Set(["Stripe", "Kubernetes"]);

const catalogs = new Map<string, Promise<Catalog>>();
function setUp(file: string) {
  const { spec, tasks } = readTasks(file);
  if (!catalogs.has(spec)) catalogs.set(spec, loadCatalog(spec));
  return { tasks, catalog: catalogs.get(spec)! };
}

function measure({ tasks, catalog }: { tasks: Array<{ task: string; expected: string[] }>; catalog: Catalog }) {
  const index = new ToolSearch(catalog);
  const report = evaluate({ tasks, search: (query) => index.search(query, 5).map((hit) => hit.tool.name) });
  // In percent to one decimal, as the bench prints them.
  const percent = (rate: number) => Math.round(rate * 1000) / 10;
  return { report, top1: percent(report.top1), top5: percent(report.top5) };
}

for (const set of TASK_SETS) {
  describe(`search quality on ${set.name}'s spec${set.tuned ? "" : " (not tuned on)"}`, () => {
    const { tasks, catalog } = setUp(set.file);

    it("has at least 40 tasks, each naming tools that exist, none a tool's summary word for word", async () => {
      const { tools } = await catalog;
      expect(tasks.length).toBeGreaterThanOrEqual(40);
      const names = new Set(tools.map((tool) => tool.name));
      const summaries = new Set(tools.map((tool) => tool.title.toLowerCase()));
      for (const { task, expected } of tasks) {
        expect(expected.length, task).toBeGreaterThan(0);
        for (const name of expected) expect(names.has(name), `${task} → ${name}`).toBe(true);
        expect(summaries.has(task.toLowerCase()), task).toBe(false);
      }
      expect(new Set(tasks.map((t) => t.task)).size).toBe(tasks.length);
    }, 60_000);

    const reached = REACHED[set.name]!;
    it(`does not fall below what it reached: top-1 ${reached.top1}%, top-5 ${reached.top5}%`, async () => {
      const { top1, top5 } = measure({ tasks, catalog: await catalog });
      expect(top1).toBeGreaterThanOrEqual(reached.top1);
      expect(top5).toBeGreaterThanOrEqual(reached.top5);
    }, 60_000);

    const targets = `finds an expected tool first in ≥ ${set.targets.top1 * 100}% of tasks and in the top five in ≥ ${set.targets.top5 * 100}%`;
    // A set short of its targets is marked so: the test then passes only while the shortfall lasts, and tells
    // when the targets are met (remove the set from SHORT_OF_TARGETS then).
    const test = SHORT_OF_TARGETS.has(set.name) ? it.fails : it;
    test(`${targets}${SHORT_OF_TARGETS.has(set.name) ? " (not met yet)" : ""}`, async () => {
      const { report, top1, top5 } = measure({ tasks, catalog: await catalog });
      // Only the tuned set's misses are shown: the others are a measure, looked at in total only.
      const misses = set.tuned
        ? report.misses
            .map((m) => `${m.rank ?? "-"} ${m.task} → ${m.expected.join("|")}, got ${m.found.slice(0, 3).join(", ")}`)
            .join("\n")
        : "";
      expect(top1, misses).toBeGreaterThanOrEqual(set.targets.top1 * 100);
      expect(top5, misses).toBeGreaterThanOrEqual(set.targets.top5 * 100);
    }, 60_000);
  });
}
