// The messages between the pool (main thread) and a sandbox worker. Values cross as JSON text only: the worker
// never holds a host object, and the host never holds an engine handle.

import type { ScriptLimits, ScriptOutcome } from "./script.js";

/** Main → worker. */
export type ToWorker =
  | {
      type: "run";
      id: number;
      code: string;
      tools: readonly string[];
      limits: ScriptLimits;
      /** The sandbox's fixed clock, epoch ms. */
      now: number;
      /** What remains of wallMs once the run leaves the queue. */
      wallLeftMs: number;
    }
  /** `json` is the tool's value as JSON text (absent for undefined). */
  | { type: "answer"; id: number; call: number; ok: true; json?: string | undefined }
  | { type: "answer"; id: number; call: number; ok: false; message: string }
  /** Wakes a worker waiting on answers, to see the stop flag (cancelled). */
  | { type: "wake"; id: number };

/** Worker → main. `logs` are the lines written since the previous message, so a killed worker loses none before. */
export type FromWorker =
  | { type: "ready" }
  | { type: "call"; id: number; call: number; tool: string; args: string; logs: string[] }
  | { type: "done"; id: number; outcome: Omit<ScriptOutcome, "apiCalls" | "logs">; logs: string[] };

/**
 * What the pool and a worker share: the stop flag the pool raises on cancellation (read by the engine's interrupt
 * handler), and the CPU time the run has used, kept by the worker, so the pool can end a run whose engine is busy
 * where it never asks its interrupt handler (a storm of calls that overflow the stack at once, say).
 */
export class Control {
  readonly buffer: SharedArrayBuffer;
  private readonly flag: Int32Array;
  /** [start of the current engine slice (0: none), CPU ms used before it], on the epoch clock. */
  private readonly times: Float64Array;

  constructor(buffer = new SharedArrayBuffer(24)) {
    this.buffer = buffer;
    this.flag = new Int32Array(buffer, 0, 1);
    this.times = new Float64Array(buffer, 8, 2);
  }

  reset(): void {
    Atomics.store(this.flag, 0, 0);
    this.times.fill(0);
  }

  cancel(): void {
    Atomics.store(this.flag, 0, 1);
  }

  get cancelled(): boolean {
    return Atomics.load(this.flag, 0) === 1;
  }

  slice(startedAt: number, usedMs: number): void {
    this.times[1] = usedMs;
    this.times[0] = startedAt;
  }

  /** CPU time used, counting the slice under way. */
  usedMs(now = epochNow()): number {
    const [startedAt = 0, used = 0] = this.times;
    return used + (startedAt > 0 ? now - startedAt : 0);
  }
}

/** Milliseconds on a clock both threads share. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

const LIMIT_WORDS: Record<keyof ScriptLimits, (limits: ScriptLimits) => string> = {
  wallMs: (l) => `its time limit (wallMs ${l.wallMs})`,
  cpuMs: (l) => `its CPU time limit (cpuMs ${l.cpuMs})`,
  memoryBytes: (l) => `its memory limit (memoryBytes ${l.memoryBytes})`,
  stackBytes: (l) => `its stack limit (stackBytes ${l.stackBytes}): recursion too deep`,
  maxApiCalls: (l) => `its limit of ${l.maxApiCalls} api calls (maxApiCalls)`,
  maxOutputBytes: (l) => `its output limit (maxOutputBytes ${l.maxOutputBytes}) in logs and return value`,
};

/** "The script was stopped at its CPU time limit (cpuMs 2000) after 3 api calls and 2 log lines." */
export function limitMessage({
  limit,
  limits,
  apiCalls,
  logLines,
}: {
  limit: keyof ScriptLimits;
  limits: ScriptLimits;
  apiCalls: number;
  logLines: number;
}): string {
  return `The script was stopped at ${LIMIT_WORDS[limit](limits)} after ${doneBefore({ apiCalls, logLines })}.`;
}

export function doneBefore({ apiCalls, logLines }: { apiCalls: number; logLines: number }): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(apiCalls, "api call")} and ${plural(logLines, "log line")}`;
}
