// Search quality in dynamic mode: the task set (bench/fixtures/github-search-tasks.json, tasks phrased as a user
// would ask, each with the tool that does it) run through `search_tools`' ranking over GitHub's spec. Prints the
// top-1 and top-5 hit rates against the targets, each miss with what came first, and what dynamic mode costs up
// front (the bytes of its tools/list). Deterministic: the same build gives the same figures.
//
// Run: npm run build && node bench/search.mjs   (--all prints every task, not only the misses)

import { parseArgs } from "node:util";
import { loadCatalog } from "../dist/index.js";
import { approximateTokens } from "../dist/catalog/listing.js";
import { credentialVariables } from "../dist/catalog/security.js";
import { DynamicProvider } from "../dist/runtime/dynamic.js";
import { startEngine } from "../dist/runtime/start.js";
import { ToolSearch } from "../dist/runtime/search.js";
import { evaluate, readTasks, TARGETS } from "./search-eval.mjs";
import { recordSummary } from "./report.mjs";

const { values: options } = parseArgs({ options: { all: { type: "boolean", default: false } } });
const { spec, tasks } = readTasks();
const catalog = await loadCatalog(spec);

let started = performance.now();
const index = new ToolSearch({ tools: catalog.tools, definitions: catalog.definitions });
const indexMs = performance.now() - started;
started = performance.now();
const report = evaluate({ tasks, search: (query) => index.search(query, 10).map((hit) => hit.tool.name) });
const queryMs = (performance.now() - started) / tasks.length;

// What a client is sent in dynamic mode, credentials stubbed (the engine refuses to start without them).
const env = Object.fromEntries(
  Object.values(catalog.credentials)
    .flatMap((scheme) => credentialVariables(scheme))
    .map((name) => [name, "stub"]),
);
const engine = startEngine({ catalog, env, log: () => {} });
const listed = JSON.stringify({ tools: new DynamicProvider({ engine, catalog }).listTools() });
const bytes = Buffer.byteLength(listed);

const percent = (rate) => `${(rate * 100).toFixed(1)}%`;
const verdict = (rate, target) => (rate >= target ? "met" : "NOT MET");
console.log(
  `GitHub: ${catalog.tools.length} tools, ${report.total} tasks; index built in ${indexMs.toFixed(0)} ms, ${queryMs.toFixed(2)} ms a query`,
);
console.log(
  `top-1: ${percent(report.top1)} (target ≥ ${percent(TARGETS.top1)}: ${verdict(report.top1, TARGETS.top1)})`,
);
console.log(
  `top-5: ${percent(report.top5)} (target ≥ ${percent(TARGETS.top5)}: ${verdict(report.top5, TARGETS.top5)})`,
);
console.log(`dynamic mode tools/list: ${bytes} bytes ≈ ${approximateTokens(bytes)} tokens (target ≤ 250)`);
recordSummary({
  bench: "search",
  measure: `GitHub, ${report.total} tasks: top-1`,
  value: percent(report.top1),
  target: `≥ ${percent(TARGETS.top1)}`,
  met: report.top1 >= TARGETS.top1,
});
recordSummary({
  bench: "search",
  measure: `GitHub, ${report.total} tasks: top-5`,
  value: percent(report.top5),
  target: `≥ ${percent(TARGETS.top5)}`,
  met: report.top5 >= TARGETS.top5,
});
recordSummary({
  bench: "search",
  measure: "dynamic mode tools/list (GitHub)",
  value: `${approximateTokens(bytes)} tokens`,
  target: "≤ 250",
  met: approximateTokens(bytes) <= 250,
});
const shown = options.all ? report.results : report.misses;
if (shown.length > 0)
  console.log(`\n${options.all ? "every task" : "not first"} (rank of the expected tool; what came first):`);
for (const result of shown) {
  console.log(
    `  ${result.rank === undefined ? "–" : `#${result.rank}`}  "${result.task}" → ${result.expected.join(" | ")}`,
  );
  console.log(`      got: ${result.found.slice(0, 3).join(", ")}`);
}
process.exitCode = report.top1 >= TARGETS.top1 && report.top5 >= TARGETS.top5 ? 0 : 1;
