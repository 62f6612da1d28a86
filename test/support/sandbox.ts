// Helpers for the sandbox tests: a recording `api`, and a ticker that measures how long the main thread's event
// loop stalls while a script runs (a sandbox on the main thread would stall it for the script's whole CPU time).

import type { ApiAnswer } from "../../src/runtime/modes/sandbox/script.js";

export interface RecordedCall {
  tool: string;
  args: unknown;
}

/** An `api` answering `{ tool, args }` back, except for tools named in `errors`; it records every call. */
export function recordingApi(errors: Record<string, string> = {}) {
  const calls: RecordedCall[] = [];
  const api = async ({ tool, args }: RecordedCall): Promise<ApiAnswer> => {
    calls.push({ tool, args });
    return Object.hasOwn(errors, tool) ? { ok: false, message: errors[tool]! } : { ok: true, value: { tool, args } };
  };
  return { api, calls };
}

/** Runs `work` while a 5 ms timer ticks on this thread; gives its result, the ticks and the longest gap. */
export async function whileTicking<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; maxGapMs: number }> {
  let ticks = 0;
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks += 1;
  }, 5);
  try {
    const result = await work();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { result, ticks, maxGapMs };
  } finally {
    clearInterval(timer);
  }
}
