// The context budget: the costliest tools and tags, and above the budget one line of advice that `inspect` shows
// and `serve` prints on stderr at start.

import { describe, expect, it } from "vitest";
import { GITHUB_SPEC } from "../../bench/corpus-check.mjs";
import { contextBudget, listingOverBudget, TOKEN_BUDGET } from "../../src/inspect/budget.js";
import { inspectCatalog } from "../../src/inspect/report.js";
import { loadCatalog } from "../../src/load/index.js";
import { serve } from "../../src/app/serve.js";
import { example } from "../support/fixtures.js";

const tool = (name: string, tokens: number, tags: string[] = []) => ({ name, tokens, tags });

describe("context budget", () => {
  it("names the costliest tools and tags, and gives no advice within the budget", () => {
    const budget = contextBudget({
      tools: [tool("a", 100, ["pets"]), tool("b", 900, ["pets", "store"]), tool("c", 300, ["store"]), tool("d", 50)],
      tokens: 1_350,
    });
    expect(budget).toEqual({
      threshold: TOKEN_BUDGET,
      tokens: 1_350,
      over: false,
      largestTools: [
        { name: "b", tokens: 900 },
        { name: "c", tokens: 300 },
        { name: "a", tokens: 100 },
        { name: "d", tokens: 50 },
      ],
      largestTags: [
        { tag: "store", tools: 2, tokens: 1_200 },
        { tag: "pets", tools: 2, tokens: 1_000 },
      ],
    });
  });

  it("over the budget, says what it costs and what to do: dynamic mode, or a tag that fits the budget", () => {
    const tools = [
      ...Array.from({ length: 30 }, (_, i) => tool(`repo${i}`, 1_000, ["repos"])),
      tool("gist", 8_000, ["gists"]),
      tool("gist2", 4_000, ["gists"]),
    ];
    const { over, advice } = contextBudget({ tools, tokens: 42_000 });
    expect(over).toBe(true);
    expect(advice).toBe(
      "tools/list costs ≈ 42,000 tokens for 32 tools, over the 20,000-token budget: serve with --mode dynamic (three discovery tools, a few hundred tokens up front), or keep only what the agent needs, e.g. --include tag:gists (2 tools, ≈ 12,000 tokens)",
    );
  });

  it("without a tag that fits, names the filters instead", () => {
    const { advice } = contextBudget({
      tools: [tool("a", 15_000), tool("b", 15_000, ["big one"])],
      tokens: 30_000,
      threshold: 20_000,
    });
    expect(advice).toMatch(
      /--mode dynamic .*, or keep only what the agent needs with --include tag:NAME, op:OPERATION_ID or path:GLOB$/,
    );
  });
});

describe("listingOverBudget (generate's question)", () => {
  it("agrees with the full count on either side of the budget", async () => {
    const catalog = await loadCatalog(example("petstore.openapi.yaml"));
    const { tokens } = inspectCatalog(catalog).totals;
    expect(listingOverBudget(catalog)).toBe(false);
    expect(listingOverBudget(catalog, tokens)).toBe(false);
    expect(listingOverBudget(catalog, tokens - 1)).toBe(true);
  });
});

describe("serve", () => {
  async function startLines(source: string, env: Record<string, string> = {}): Promise<string[]> {
    const lines: string[] = [];
    const running = await serve(source, { transport: "http", port: 0, env, log: (line) => lines.push(line) });
    await running.close();
    return lines;
  }

  it("prints the advice on stderr when tools/list is over the budget", async () => {
    const advice = (await startLines(GITHUB_SPEC)).filter((line) => line.includes("budget"));
    expect(advice).toHaveLength(1);
    expect(advice[0]).toMatch(
      /^openapi-mcp: tools\/list costs ≈ [\d,]+ tokens for 1,\d{3} tools, over the 20,000-token budget: serve with --mode dynamic .* --include tag:[\w.-]+ \(\d+ tools, ≈ [\d,]+ tokens\)$/,
    );
  });

  it("says nothing of it within the budget", async () => {
    const lines = await startLines(example("petstore.openapi.yaml"), { API_KEY_API_KEY: "k-123456" });
    expect(lines.filter((line) => line.includes("budget"))).toEqual([]);
  });
});
