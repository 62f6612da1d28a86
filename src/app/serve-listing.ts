// What `serve` lists in tools mode, serialized once: each entry's JSON sizes the pages and the context budget, goes
// into the catalog cache, and is what the stdio transport sends. From the cache the texts are used as they are,
// and parsed only if a transport wants objects (HTTP serializes its answers itself).

import type { Catalog } from "../catalog/types.js";
import type { Engine } from "../runtime/engine.js";
import { DelegatingProvider } from "../runtime/engine/delegating-provider.js";
import type { ListingJson, ServedProvider, ServedTool } from "../runtime/types.js";

export interface ServedListing {
  provider: ServedProvider;
  listing: ListingJson;
  /** Every tool's entry with output schemas (what the cache keeps), when that is what is listed. */
  whole?: readonly string[];
}

/**
 * The engine's listing as JSON: from `cached` (every tool's entry with output schemas, in the catalog's order)
 * when output schemas are listed, else from the engine. Hidden tools are left out either way.
 */
export function servedListing({
  engine,
  catalog,
  cached,
  outputSchemas,
}: {
  engine: Engine;
  catalog: Catalog;
  cached?: Buffer[];
  outputSchemas: boolean;
}): ServedListing {
  if (cached && outputSchemas) {
    const listed = catalog.tools.flatMap((tool, i) => (engine.hasTool(tool.name) ? [i] : []));
    const listing = {
      names: listed.map((i) => catalog.tools[i]!.name),
      texts: listed.map((i) => cached[i]!.toString("utf8")),
    };
    let parsed: ServedTool[] | undefined;
    const parse = (): ServedTool[] => {
      parsed ??= listing.texts.map((text) => JSON.parse(text) as ServedTool);
      return parsed;
    };
    return { provider: new ListedProvider({ engine, listing, listTools: parse }), listing };
  }
  const entries = engine.listTools();
  const listing = { names: entries.map((entry) => entry.name), texts: entries.map((entry) => JSON.stringify(entry)) };
  const whole = outputSchemas && entries.length === catalog.tools.length ? listing.texts : undefined;
  return {
    provider: new ListedProvider({ engine, listing, listTools: () => entries }),
    listing,
    ...(whole ? { whole } : {}),
  };
}

/** The engine, with its listing serialized. */
class ListedProvider extends DelegatingProvider {
  private readonly engine: Engine;
  private readonly listing: ListingJson;
  private readonly entries: () => ServedTool[];

  constructor({ engine, listing, listTools }: { engine: Engine; listing: ListingJson; listTools: () => ServedTool[] }) {
    super();
    this.engine = engine;
    this.listing = listing;
    this.entries = listTools;
  }

  protected target(): Engine {
    return this.engine;
  }

  override listTools(): ServedTool[] {
    return this.entries();
  }

  override listingJson(): ListingJson {
    return this.listing;
  }
}
