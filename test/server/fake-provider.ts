// A ToolProvider that records every call and can be slow: what the binding tests need to see, with no engine.
// `slow` waits `ms` milliseconds, or until its signal fires (unless `ignoreSignal`), and says which happened.

import type { ListedTool } from "../../src/catalog/listing.js";
import type { CallContext, Caller, ToolProvider, ToolResult } from "../../src/runtime/types.js";

export interface RecordedCall {
  name: string;
  args: unknown;
  sessionId: string | undefined;
  signal: AbortSignal | undefined;
  /** The verified caller the binding passed, if any. */
  caller: Caller | undefined;
  /** Settles with the result once the call ends. */
  done: Promise<ToolResult>;
}

const annotations = (title: string) => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

export const TOOLS: ListedTool[] = [
  {
    name: "echo",
    title: "Echo",
    description: "Returns its arguments.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    outputSchema: { type: "object", properties: { args: { type: "object" } }, required: ["args"] },
    annotations: annotations("Echo"),
  },
  {
    name: "slow",
    title: "Slow",
    description: "Waits `ms` milliseconds.",
    inputSchema: { type: "object", properties: { ms: { type: "number" }, ignoreSignal: { type: "boolean" } } },
    annotations: annotations("Slow"),
  },
];

export class FakeProvider implements ToolProvider {
  readonly calls: RecordedCall[] = [];
  private waiters: Array<{ count: number; resolve: (call: RecordedCall) => void }> = [];

  listTools(): ListedTool[] {
    return TOOLS;
  }

  hasTool(name: string): boolean {
    return TOOLS.some((tool) => tool.name === name);
  }

  callTool(name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const done = this.run(name, args, context.signal);
    const { sessionId, signal, caller } = context;
    const call: RecordedCall = { name, args, sessionId, signal, caller, done };
    this.calls.push(call);
    for (const waiter of this.waiters.filter((w) => this.calls.length >= w.count))
      waiter.resolve(this.calls[waiter.count - 1]!);
    this.waiters = this.waiters.filter((w) => this.calls.length < w.count);
    return done;
  }

  /** The `count`-th call (1-based), once it has started. */
  started(count = 1): Promise<RecordedCall> {
    const call = this.calls[count - 1];
    if (call) return Promise.resolve(call);
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  private async run(name: string, args: unknown, signal: AbortSignal | undefined): Promise<ToolResult> {
    const input = (args ?? {}) as { ms?: number; ignoreSignal?: boolean };
    if (name === "echo") {
      return { content: [{ type: "text", text: JSON.stringify(args) }], structuredContent: { args: args as object } };
    }
    const aborted = await sleep({ ms: input.ms ?? 0, signal: input.ignoreSignal ? undefined : signal });
    if (aborted) return { content: [{ type: "text", text: "cancelled" }], isError: true };
    return { content: [{ type: "text", text: `slept ${input.ms ?? 0} ms` }] };
  }
}

/** Resolves true when `signal` fires first, false when `ms` pass. */
function sleep({ ms, signal }: { ms: number; signal: AbortSignal | undefined }): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
