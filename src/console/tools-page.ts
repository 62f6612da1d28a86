// The Tools page's API: every tool of the catalog (denied ones too, marked so) with its class, policy, the profiles
// that see it and what its listing entry costs a client in tokens; a search with dynamic mode's search (BM25 over
// the same fields, runtime/modes/search/search.ts); one tool in full, its schemas as tools/list gives them.

import { parseFilters, toolPasses } from "../catalog/filter.js";
import { approximateTokens, Listing } from "../catalog/listing.js";
import type { Catalog, Tool } from "../catalog/types.js";
import type { Engine } from "../runtime/engine.js";
import { ToolSearch } from "../runtime/modes/search/search.js";
import type { ConsolePage, ConsoleView, PageAnswer } from "./page.js";

/** Search results shown: more than a person reads, fewer than the whole catalog. */
const SEARCH_LIMIT = 50;

export interface ToolRow {
  name: string;
  title: string;
  effect: Tool["effect"];
  policy: string;
  tokens: number;
  /** The profiles that list it; null on a server without profiles (every caller sees every listed tool). */
  profiles: string[] | null;
}

/** What is worked out once per catalog: a swapped catalog gets its own. */
interface Index {
  rows: Map<string, ToolRow>;
  listing: Listing;
  search?: ToolSearch;
}

export class ToolsPage implements ConsolePage {
  readonly name = "tools";
  private readonly indexes = new WeakMap<Catalog, Index>();

  async get({ path, query, view }: Parameters<NonNullable<ConsolePage["get"]>>[0]): Promise<PageAnswer> {
    const index = this.index(view);
    if (path.length === 1) return this.detail({ view, index, name: path[0]! });
    const q = query.get("q")?.trim() ?? "";
    if (q === "") return { json: { tools: [...index.rows.values()], total: index.rows.size } };
    index.search ??= new ToolSearch({ tools: view.catalog.tools, definitions: view.catalog.definitions });
    const hits = index.search.search(q, SEARCH_LIMIT);
    return { json: { tools: hits.map((hit) => index.rows.get(hit.tool.name)!), total: index.rows.size } };
  }

  /** Builds the rows ahead of the first visit (GitHub's 1,223 tools take a few hundred ms). */
  warm(view: ConsoleView): void {
    this.index(view);
  }

  private detail({ view, index, name }: { view: ConsoleView; index: Index; name: string }): PageAnswer {
    const tool = view.catalog.tools.find((t) => t.name === name);
    const row = index.rows.get(name);
    if (!tool || !row) return { status: 404, json: { error: `There is no tool named '${name}'.` } };
    const entry = index.listing.entry(tool);
    const { operation } = tool;
    return {
      json: {
        ...row,
        rule: view.engine.policyOf(name)?.rule ?? "",
        description: tool.description,
        method: operation.method.toUpperCase(),
        path: operation.path,
        server: operation.serverUrl,
        source: tool.source,
        inputSchema: entry.inputSchema,
        outputSchema: entry.outputSchema ?? null,
      },
    };
  }

  private index(view: ConsoleView): Index {
    const known = this.indexes.get(view.catalog);
    if (known) return known;
    const listing = new Listing(view.catalog, { outputSchema: true });
    const seen = profileViews(view);
    const rows = new Map<string, ToolRow>();
    for (const tool of view.catalog.tools) {
      rows.set(tool.name, {
        name: tool.name,
        title: tool.title,
        effect: tool.effect,
        policy: view.engine.policyOf(tool.name)?.decision ?? "deny",
        tokens: approximateTokens(listing.bytes(tool)),
        profiles: seen ? seen.flatMap(({ name, engine }) => (engine.hasTool(tool.name) ? [name] : [])) : null,
      });
    }
    const index = { rows, listing };
    this.indexes.set(view.catalog, index);
    return index;
  }
}

/** Each profile's view of the engine (its filters and policies), as profiled.ts makes them; none without profiles. */
function profileViews({ engine, settings }: ConsoleView): Array<{ name: string; engine: Engine }> | undefined {
  const profiles = settings?.profiles;
  if (!profiles || Object.keys(profiles).length === 0) return undefined;
  return Object.entries(profiles).map(([name, profile]) => {
    const place = `${settings.file}#/profiles/${name}`;
    const filters = parseFilters({ include: profile.include ?? [], exclude: profile.exclude ?? [], place });
    const policy = Object.entries(profile.policy ?? {}).map(([target, decision]) => `${target}=${decision}`);
    return { name, engine: engine.withProfile({ name, tools: (tool) => toolPasses(tool, filters), policy }) };
  });
}
