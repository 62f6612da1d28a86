// The provider contract's defaults (types.ts: ToolProvider is the core, ServedProvider what the binding serves).
// ProviderBase gives a provider of its own tools (the engine, dynamic and code mode) what a plain provider means for
// each feature; servedProvider() gives the same to a provider that has only the core (a program's own, a test's).

import type {
  ApprovalAnswer,
  BegunCall,
  CallContext,
  Caller,
  ListingJson,
  ResumeCall,
  ServedProvider,
  ServedTool,
  StartCall,
  ToolProvider,
  ToolResult,
} from "../types.js";

const cannotAsk = async (): Promise<ApprovalAnswer> => "unsupported";

export abstract class ProviderBase implements ServedProvider {
  abstract listTools(): ServedTool[];
  abstract hasTool(name: string): boolean;
  abstract callTool(name: string, args: unknown, context?: CallContext): Promise<ToolResult>;

  /** Not serialized: the binding serializes listTools() when it answers. */
  listingJson(): ListingJson | undefined {
    return undefined;
  }

  /** No state to hand out: the call made now, as by a client that cannot be asked (a call needing approval is refused). */
  async beginCall({ name, args, context = {} }: StartCall): Promise<BegunCall> {
    return { result: await this.callTool(name, args, { ...context, approve: cannotAsk }) };
  }

  /** No state was handed out: the call made now, as by a client that cannot be asked. */
  resumeCall({ name, args, context = {} }: ResumeCall): Promise<ToolResult> {
    return this.callTool(name, args, { ...context, approve: cannotAsk });
  }

  perCaller(): boolean {
    return false;
  }

  forCaller(_caller: Caller | undefined): ServedProvider {
    return this;
  }

  changing(): boolean {
    return false;
  }

  snapshot(): ServedProvider {
    return this;
  }

  onListChanged(_listener: () => void): () => void {
    return () => {};
  }
}

/** A provider with every feature: itself when it has them, else its core with ProviderBase's defaults. */
export function servedProvider(provider: ToolProvider): ServedProvider {
  return provider instanceof ProviderBase ? provider : new CoreProvider(provider);
}

/**
 * A provider with only the core. One written for the contract before ProviderBase may also serialize its listing
 * or answer approval later (`listingJson`, `beginCall`, `resumeCall`): those it has are used.
 */
class CoreProvider extends ProviderBase {
  constructor(
    private readonly core: ToolProvider & Partial<Pick<ServedProvider, "listingJson" | "beginCall" | "resumeCall">>,
  ) {
    super();
  }

  listTools(): ServedTool[] {
    return this.core.listTools();
  }

  hasTool(name: string): boolean {
    return this.core.hasTool(name);
  }

  callTool(name: string, args: unknown, context?: CallContext): Promise<ToolResult> {
    return this.core.callTool(name, args, context);
  }

  override listingJson(): ListingJson | undefined {
    return this.core.listingJson?.();
  }

  override beginCall(call: StartCall): Promise<BegunCall> {
    return this.core.beginCall && this.core.resumeCall ? this.core.beginCall(call) : super.beginCall(call);
  }

  override resumeCall(call: ResumeCall): Promise<ToolResult> {
    return this.core.beginCall && this.core.resumeCall ? this.core.resumeCall(call) : super.resumeCall(call);
  }
}
