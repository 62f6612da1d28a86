// Scale: the project generated from GitHub's spec (1,223 operations; the leading generator's output fails on it
// with TS2590) and projects from a spread of real specs all pass the project's own strict `tsc`.

import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import type { CorpusSpec } from "../../bench/corpus-check.mjs";
import { directorySpecs, GITHUB_SPEC } from "../../bench/corpus-check.mjs";
import { generateProject } from "../../src/generate/index.js";
import { loadCatalog } from "../../src/load/index.js";
import { linkDependencies, temporaryProjectDir, typecheckInBackground } from "../support/generated.js";

/** Evenly spread over the sorted directory (so over providers), plus the largest specs under 5 MB. */
const SPREAD = 24;
const LARGEST = 2;
const LARGE_LIMIT = 5_000_000;

function sample(): CorpusSpec[] {
  const all = directorySpecs();
  const step = Math.floor(all.length / SPREAD);
  const picked = all.filter((_, index) => index % step === 0).slice(0, SPREAD);
  const largest = all
    .filter((s) => s.bytes < LARGE_LIMIT)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, LARGEST);
  return [...picked, ...largest.filter((s) => !picked.includes(s))];
}

async function generated(file: string): Promise<{ project: string; tools: number }> {
  const catalog = await loadCatalog(file);
  const project = temporaryProjectDir("scale");
  generateProject({ catalog, out: project, generator: "openapi-mcp scale test" });
  linkDependencies(project);
  return { project, tools: catalog.tools.length };
}

describe("generated projects at scale pass strict tsc", () => {
  it("GitHub's spec", async () => {
    const { project, tools } = await generated(GITHUB_SPEC);
    expect(tools).toBeGreaterThan(1_000);
    expect(await typecheckInBackground(project)).toBe("");
  }, 120_000);

  it(`a corpus sample (${SPREAD} spread over the directory and the ${LARGEST} largest under 5 MB)`, async () => {
    const specs = sample();
    expect(specs.length).toBeGreaterThanOrEqual(20);
    const failures: string[] = [];
    let tools = 0;
    // As many compilers at once as there are cores; loading and generating happen in between.
    const queue = [...specs];
    const worker = async (): Promise<void> => {
      for (let spec = queue.shift(); spec; spec = queue.shift()) {
        const project = await generated(spec.file);
        tools += project.tools;
        const output = await typecheckInBackground(project.project);
        if (output) failures.push(`${spec.name}:\n${output.split("\n").slice(0, 5).join("\n")}`);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(4, availableParallelism())) }, worker));
    expect(failures).toEqual([]);
    expect(tools).toBeGreaterThan(100);
  }, 300_000);
});
