// What a script run is, for everything that runs, queues or reports one: its limits, its caller's turn (turns.ts),
// the answers its api calls get and its outcome. Types and defaults only, so the pool, the worker, the turns and the
// protocol all import it and none of them each other's.

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

/** Code mode's bounds on the scripts waiting for a worker (--script-max-queued and the rest). */
export interface ScriptQueueLimits {
  /** Scripts waiting, all callers together. */
  maxQueued: number;
  /** UTF-8 bytes of the scripts waiting, all callers together. */
  queueBytes: number;
  /** UTF-8 bytes of one caller's waiting scripts together. */
  queueBytesPerPrincipal: number;
}

/** One caller's share: its in-flight limits (the engine's, its profile's) and code mode's queue bounds. */
export interface ScriptTurn extends ScriptQueueLimits {
  principal: string;
  /** Scripts of this caller running at once (its --max-in-flight-per-principal; never all the workers). */
  perPrincipal: number;
  /** Scripts of this caller waiting (its --max-queued). */
  queue: number;
  /** How long a script may wait for a worker (never past its wall time). */
  queueTimeoutMs: number;
}
