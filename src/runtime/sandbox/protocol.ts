// The messages between the pool (main thread) and a sandbox worker. Values cross as JSON text only: the worker
// never holds a host object, and the host never holds an engine handle.

import type { ScriptLimits, ScriptOutcome } from "./run-script.js";

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
  | { type: "answer"; id: number; call: number; ok: true; json?: string }
  | { type: "answer"; id: number; call: number; ok: false; message: string }
  /** Wakes a worker waiting on answers, to see the stop flag (cancelled). */
  | { type: "wake"; id: number };

/** Worker → main. `logs` are the lines written since the previous message, so a killed worker loses none before. */
export type FromWorker =
  | { type: "ready" }
  | { type: "call"; id: number; call: number; tool: string; args: string; logs: string[] }
  | { type: "done"; id: number; outcome: Omit<ScriptOutcome, "apiCalls" | "logs">; logs: string[] };

/** Values of the stop flag the pool writes into a worker's shared memory, read by the engine's interrupt handler. */
export const STOP_NONE = 0;
export const STOP_CANCELLED = 1;

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
