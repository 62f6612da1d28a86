// The context budget: what a server's tools/list costs the model before the first call, which tools and tags
// weigh most, and, above the budget, what to do about it. `inspect` reports it and `serve` prints its advice, so
// both say the same thing.

import { approximateTokens, Listing } from "../catalog/listing.js";
import { plural } from "../catalog/plural.js";
import type { Catalog, Tool } from "../catalog/types.js";

/** Above this many tokens up front, a tools-mode server leaves a model little room for the task itself. */
export const TOKEN_BUDGET = 20_000;
const LARGEST_SHOWN = 5;

export interface ToolCost {
  name: string;
  tokens: number;
  tags: string[];
}

export interface TagCost {
  tag: string;
  tools: number;
  tokens: number;
}

export interface Budget {
  /** The budget in tokens, and whether tools/list goes over it. */
  threshold: number;
  tokens: number;
  over: boolean;
  /** The costliest tools and tags, costliest first. */
  largestTools: Array<{ name: string; tokens: number }>;
  largestTags: TagCost[];
  /** One line saying what to do, when over the budget. */
  advice?: string;
}

export function contextBudget({
  tools,
  tokens,
  threshold = TOKEN_BUDGET,
}: {
  tools: ToolCost[];
  tokens: number;
  threshold?: number;
}): Budget {
  const largestTools = [...tools]
    .sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name))
    .slice(0, LARGEST_SHOWN)
    .map(({ name, tokens: cost }) => ({ name, tokens: cost }));
  const tags = tagCosts(tools);
  const over = tokens > threshold;
  return {
    threshold,
    tokens,
    over,
    largestTools,
    largestTags: tags.slice(0, LARGEST_SHOWN),
    ...(over ? { advice: advice({ tools: tools.length, tokens, threshold, tags }) } : {}),
  };
}

/** The budget of what a server lists: its tools/list entries as sent (their JSON), tags from the catalog's tools. */
export function servedBudget({
  listed,
  tools,
}: {
  listed: { names: readonly string[]; texts: readonly string[] };
  tools: Tool[];
}): Budget {
  const tagsOf = new Map(tools.map((tool) => [tool.name, tool.origin.tags]));
  let bytes = `{"tools":[]}`.length + Math.max(0, listed.names.length - 1);
  const costs = listed.names.map((name, i): ToolCost => {
    const size = Buffer.byteLength(listed.texts[i]!);
    bytes += size;
    return { name, tokens: approximateTokens(size), tags: tagsOf.get(name) ?? [] };
  });
  return contextBudget({ tools: costs, tokens: approximateTokens(bytes) });
}

/**
 * Whether the catalog's tools/list (tools mode, output schemas included) is over the budget, measured only until it
 * is: `generate` asks for every project, and sizing all of a large API's entries would cost it most of a second.
 */
export function listingOverBudget(catalog: Catalog, threshold = TOKEN_BUDGET): boolean {
  const listing = new Listing(catalog);
  let bytes = `{"tools":[]}`.length;
  for (const tool of catalog.tools) {
    bytes += listing.bytes(tool) + 1;
    if (approximateTokens(bytes) > threshold) return true;
  }
  return false;
}

/** Every tag's tools and their cost (a tool under two tags counts for both), costliest first. */
function tagCosts(tools: ToolCost[]): TagCost[] {
  const byTag = new Map<string, TagCost>();
  for (const tool of tools) {
    for (const tag of new Set(tool.tags)) {
      const cost = byTag.get(tag) ?? { tag, tools: 0, tokens: 0 };
      cost.tools++;
      cost.tokens += tool.tokens;
      byTag.set(tag, cost);
    }
  }
  return [...byTag.values()].sort((a, b) => b.tokens - a.tokens || a.tag.localeCompare(b.tag));
}

function advice({
  tools,
  tokens,
  threshold,
  tags,
}: {
  tools: number;
  tokens: number;
  threshold: number;
  tags: TagCost[];
}): string {
  const cost = `tools/list costs ≈ ${count(tokens)} tokens for ${count(tools)} tool${plural(tools)}, over the ${count(threshold)}-token budget`;
  const dynamic = "serve with --mode dynamic (three discovery tools, a few hundred tokens up front)";
  // The costliest tag that fits the budget on its own makes a concrete example; naming one that does not fit would
  // only move the problem. A tag name with spaces or quotes is left to the generic form.
  const example = tags.find((t) => t.tokens <= threshold && /^[\w.-]+$/.test(t.tag));
  const narrow = example
    ? `keep only what the agent needs, e.g. --include tag:${example.tag} (${count(example.tools)} tool${plural(example.tools)}, ≈ ${count(example.tokens)} tokens)`
    : "keep only what the agent needs with --include tag:NAME, op:OPERATION_ID or path:GLOB";
  return `${cost}: ${dynamic}, or ${narrow}`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
