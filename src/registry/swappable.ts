// The provider a registry serves: one catalog's provider at a time, replaced whole when a new catalog is published.
// A request takes `snapshot()` once (mcp.ts) and uses it throughout, so a call in flight finishes on the engine it
// started on while new calls use the new one; nothing is locked, the swap is one assignment.

import type {
  BegunCall,
  CallContext,
  Caller,
  ListingJson,
  ResumeCall,
  ServedTool,
  StartCall,
  ToolProvider,
  ToolResult,
} from "../runtime/types.js";

export class SwappableProvider implements ToolProvider {
  private current: ToolProvider;
  private readonly listeners = new Set<() => void>();
  /** Present when the providers have profiles (the settings, which decide it, do not change while serving). */
  readonly forCaller?: (caller: Caller | undefined) => ToolProvider;

  constructor(first: ToolProvider) {
    this.current = first;
    if (first.forCaller) this.forCaller = (caller) => this.snapshot().forCaller!(caller);
  }

  /** Serves `next` from now on and tells the listeners (each MCP server, which tells its client). */
  swap(next: ToolProvider): void {
    this.current = next;
    for (const listener of [...this.listeners]) listener();
  }

  snapshot(): ToolProvider {
    return this.current;
  }

  onListChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  listTools(): ServedTool[] {
    return this.current.listTools();
  }

  listingJson(): ListingJson {
    const provider = this.current;
    if (provider.listingJson) return provider.listingJson();
    const tools = provider.listTools();
    return { names: tools.map((tool) => tool.name), texts: tools.map((tool) => JSON.stringify(tool)) };
  }

  hasTool(name: string): boolean {
    return this.current.hasTool(name);
  }

  callTool(name: string, args: unknown, context?: CallContext): Promise<ToolResult> {
    return this.current.callTool(name, args, context);
  }

  beginCall(call: StartCall): Promise<BegunCall> {
    const provider = this.current;
    if (!provider.beginCall) throw new Error("beginCall: not supported by this provider");
    return provider.beginCall(call);
  }

  resumeCall(call: ResumeCall): Promise<ToolResult> {
    const provider = this.current;
    if (!provider.resumeCall) throw new Error("resumeCall: not supported by this provider");
    return provider.resumeCall(call);
  }
}
