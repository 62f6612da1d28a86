// The provider a registry serves: one catalog's provider at a time, replaced whole when a new catalog is published.
// A request takes `snapshot()` once (mcp.ts) and uses it throughout, so a call in flight finishes on the engine it
// started on while new calls use the new one; nothing is locked, the swap is one assignment.

import { DelegatingProvider } from "../runtime/engine/delegating-provider.js";
import type { ListingJson, ServedProvider } from "../runtime/types.js";

export class SwappableProvider extends DelegatingProvider {
  private current: ServedProvider;
  private readonly listeners = new Set<() => void>();

  constructor(first: ServedProvider) {
    super();
    this.current = first;
  }

  /** Serves `next` from now on and tells the listeners (each MCP server, which tells its client). */
  swap(next: ServedProvider): void {
    this.current = next;
    for (const listener of [...this.listeners]) listener();
  }

  protected target(): ServedProvider {
    return this.current;
  }

  override changing(): boolean {
    return true;
  }

  override snapshot(): ServedProvider {
    return this.current;
  }

  override onListChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Serialized even when the provider serving now is not (dynamic and code mode's three tools). */
  override listingJson(): ListingJson {
    const provider = this.current;
    const listing = provider.listingJson();
    if (listing) return listing;
    const tools = provider.listTools();
    return { names: tools.map((tool) => tool.name), texts: tools.map((tool) => JSON.stringify(tool)) };
  }
}
