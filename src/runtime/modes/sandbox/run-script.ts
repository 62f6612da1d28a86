// Runs a model's script in a WebAssembly JavaScript engine (QuickJS) on a worker thread: the script sees only `api`
// (one async function per tool, answered by the caller's `api`) and `console`; values cross as JSON strings, never
// as handles; every limit ends the run with an outcome naming it and what the script did before. See pool.ts for the
// threads, sandbox.ts for the engine.

import { type SandboxPool, sandboxPool } from "./pool.js";
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits, type ScriptOutcome, type ScriptRun } from "./script.js";

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
