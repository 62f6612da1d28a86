// The one base of the providers that serve another provider's tools (profiles, the registry's swap, the serialized
// listing): each member goes to `target`, the provider answering the caller at hand, and a wrapper overrides only
// what it changes.

import type {
  BegunCall,
  CallContext,
  Caller,
  ListingJson,
  ResumeCall,
  ServedProvider,
  ServedTool,
  StartCall,
  ToolResult,
} from "../types.js";
import { ProviderBase } from "./provider-base.js";

export abstract class DelegatingProvider extends ProviderBase {
  /** The provider answering `caller` (listing and lookups: none, every caller's). */
  protected abstract target(caller?: Caller): ServedProvider;

  listTools(): ServedTool[] {
    return this.target().listTools();
  }

  hasTool(name: string): boolean {
    return this.target().hasTool(name);
  }

  callTool(name: string, args: unknown, context?: CallContext): Promise<ToolResult> {
    return this.target(context?.caller).callTool(name, args, context);
  }

  override beginCall(call: StartCall): Promise<BegunCall> {
    return this.target(call.context?.caller).beginCall(call);
  }

  override resumeCall(call: ResumeCall): Promise<ToolResult> {
    return this.target(call.context?.caller).resumeCall(call);
  }

  override listingJson(): ListingJson | undefined {
    return this.target().listingJson();
  }

  override perCaller(): boolean {
    return this.target().perCaller();
  }

  override forCaller(caller: Caller | undefined): ServedProvider {
    return this.perCaller() ? this.target(caller).forCaller(caller) : this;
  }

  override changing(): boolean {
    return this.target().changing();
  }

  override snapshot(): ServedProvider {
    return this.changing() ? this.target().snapshot() : this;
  }

  override onListChanged(listener: () => void): () => void {
    return this.target().onListChanged(listener);
  }
}
