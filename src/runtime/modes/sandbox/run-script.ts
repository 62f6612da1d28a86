// Runs a model's script in a WebAssembly JavaScript engine (QuickJS) on a worker thread: the script sees only `api`
// (one async function per tool, answered by the caller's `api`) and `console`; values cross as JSON strings, never
// as handles; every limit ends the run with an outcome naming it and what the script did before. See pool.ts for the
// threads, sandbox.ts for the engine.

import { type SandboxPool, sandboxPool } from "./pool.js";
import type { ScriptTurn } from "./turns.js";

export interface ScriptLimits {
  /** From the call to the outcome, waiting for `api` answers included. */
  wallMs: number;
  /** Time spent running the script's own code (the engine's slices on its thread), answers' waits excluded. */
  cpuMs: number;
  /** The engine's heap (objects, strings, the copied-in answers): what its memory may grow by past its own 16 MiB. */
  memoryBytes: number;
  /** The engine's stack: how deep the script may recurse (at most 4 MiB, the engine's own stack). */
  stackBytes: number;
  maxApiCalls: number;
  /** UTF-8 bytes of the log lines and the JSON of the return value together. */
  maxOutputBytes: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = Object.freeze({
  wallMs: 60_000,
  cpuMs: 2_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 512 * 1024,
  maxApiCalls: 100,
  maxOutputBytes: 100_000,
});

export type ApiAnswer = { ok: true; value: unknown } | { ok: false; message: string };

export interface ScriptRun {
  /** An async function's body: `await api.<tool>(args)`, `console.log(…)`, `return …`. */
  code: string;
  /** The names `api` has, one function each; no other name exists there. */
  tools: readonly string[];
  /** Answers one call; `{ ok: false, message }` rejects the script's promise with an Error carrying `message`. */
  api: (call: { tool: string; args: unknown }) => Promise<ApiAnswer>;
  limits?: Partial<ScriptLimits>;
  signal?: AbortSignal;
  /** Whose script this is and that caller's share of the workers (turns.ts); absent: one caller, the defaults. */
  turn?: ScriptTurn;
}

export interface ScriptOutcome {
  ok: boolean;
  /** The return value, copied out as JSON (undefined when the script returns nothing or fails). */
  value?: unknown;
  logs: string[];
  /** In the order made; `ok: false` for a failed call or one still unanswered when the run ended. */
  apiCalls: Array<{ tool: string; ok: boolean }>;
  error?: {
    /** `busy`: not run, its caller's or the server's queue of scripts is full (try again later). */
    kind: "syntax" | "exception" | "limit" | "cancelled" | "busy";
    message: string;
    limit?: keyof ScriptLimits;
    /** Of the script as written, 1-based. */
    line?: number;
    column?: number;
  };
}

/** Runs one script on a warm worker (in its caller's queue while its share is busy); never rejects. */
export function runScript(run: ScriptRun, pool: SandboxPool = sandboxPool()): Promise<ScriptOutcome> {
  const limits = { ...DEFAULT_SCRIPT_LIMITS, ...definedLimits(run.limits) };
  return pool.run({ ...run, limits });
}

/** Starts the worker threads ahead of the first script, so it does not wait for the engine to load. */
export function warmSandbox(): Promise<void> {
  return sandboxPool().warm();
}

function definedLimits(limits: Partial<ScriptLimits> = {}): Partial<ScriptLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => typeof value === "number" && value >= 0));
}
