// The worker threads scripts run on, kept warm: QuickJS runs synchronously, so a script spinning on the main thread
// would stall every other call until its interrupt fired. A run first waits for its caller's turn (turns.ts: a share
// of the workers per caller, callers served in turn, bounded queues), then goes to an idle worker (a new one is
// started while fewer than the pool's size are busy); its api calls come back here to be answered. A worker that
// has not ended its run by its deadline and a grace period is terminated and replaced.

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { Control, type FromWorker, limitMessage, type ToWorker } from "./protocol.js";
import type { ScriptLimits, ScriptOutcome, ScriptRun } from "./script.js";
import { ScriptTurns } from "./turns.js";

/** How long past a deadline a worker may take to stop its script itself before it is terminated. */
const GRACE_MS = 1_000;
/** How often the CPU time a busy worker used is read. */
const CPU_WATCH_MS = 100;
const POOL_SIZE = Math.min(4, Math.max(2, availableParallelism()));
/** The host stack QuickJS's own stack lives on: room for stackBytes up to about 4 MB (RangeError beyond, a limit). */
const WORKER_STACK_MB = 16;

type Job = {
  id: number;
  run: ScriptRun & { limits: ScriptLimits };
  calledAt: number;
  logs: string[];
  apiCalls: Array<{ tool: string; ok: boolean }>;
  done: boolean;
  finish: (outcome: Omit<ScriptOutcome, "apiCalls" | "logs">) => void;
};

type Slot = {
  worker: Worker;
  control: Control;
  /** The worker has loaded the engine. */
  ready?: boolean;
  job?: Job | undefined;
  watchdog?: NodeJS.Timeout;
  cpuWatch?: NodeJS.Timeout;
};

/** Under a TypeScript runner (the tests) this file is src/…/pool.ts; the worker always runs from the build. */
function builtWorker(): URL {
  const fromSource = import.meta.url.endsWith(".ts");
  return new URL(fromSource ? "../../../../dist/runtime/modes/sandbox/worker.js" : "./worker.js", import.meta.url);
}

export interface PoolOptions {
  /** Most workers at once; runs beyond wait. */
  size?: number;
  /** The worker's file (tests start one that never answers). */
  workerFile?: URL;
  graceMs?: number;
}

export class SandboxPool {
  private readonly slots: Slot[] = [];
  /** Runs given a turn, waiting for a worker to be free (one being replaced): at most the pool's size. */
  private readonly queue: Job[] = [];
  private readonly turns: ScriptTurns;
  private nextId = 1;

  private readonly size: number;
  private readonly workerFile: URL;
  private readonly graceMs: number;

  constructor({ size = POOL_SIZE, workerFile = builtWorker(), graceMs = GRACE_MS }: PoolOptions = {}) {
    this.size = size;
    this.workerFile = workerFile;
    this.graceMs = graceMs;
    this.turns = new ScriptTurns(size);
  }

  /** Workers started and not lost: busy, idle or starting. */
  get workers(): number {
    return this.slots.length;
  }

  /** Resolves once a worker has loaded the engine; the process is kept alive meanwhile, not after. */
  warm(): Promise<void> {
    const slot = this.slots[0] ?? this.spawn();
    if (slot.ready) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        slot.worker.off("message", ready);
        if (!slot.job) slot.worker.unref();
        resolve();
      };
      const ready = (message: FromWorker): void => {
        if (message.type === "ready") done();
      };
      slot.worker.on("message", ready);
      slot.worker.once("exit", () => resolve());
      slot.worker.ref();
    });
  }

  /** Scripts running now, of one caller or of all. */
  running(principal?: string): number {
    return this.turns.running(principal);
  }

  async run(run: ScriptRun & { limits: ScriptLimits }): Promise<ScriptOutcome> {
    const calledAt = performance.now();
    const { turn, code, limits, signal } = run;
    const taken = await this.turns.take({ turn, code, wallMs: limits.wallMs, signal });
    if ("refused" in taken) return { ok: false, error: taken.refused, logs: [], apiCalls: [] };
    return new Promise((resolve) => {
      const job: Job = {
        id: this.nextId++,
        run,
        calledAt,
        logs: [],
        apiCalls: [],
        done: false,
        finish: (outcome) => {
          if (job.done) return;
          job.done = true;
          run.signal?.removeEventListener("abort", cancel);
          taken.release();
          resolve({ ...outcome, logs: job.logs, apiCalls: job.apiCalls });
        },
      };
      const cancel = () => this.cancel(job);
      if (run.signal?.aborted) return cancel();
      run.signal?.addEventListener("abort", cancel, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.job) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
    // A worker started ahead while there is room: the next caller's script (another's, when one caller holds all
    // the workers it may) does not wait for a new one to load the engine (about a second on a busy host).
    if (this.slots.every((s) => s.job) && this.slots.length < this.size) this.spawn();
  }

  private start(slot: Slot, job: Job): void {
    const wallLeftMs = job.run.limits.wallMs - (performance.now() - job.calledAt);
    if (wallLeftMs <= 0) {
      job.finish(this.limitOutcome(job, "wallMs"));
      return;
    }
    slot.job = job;
    slot.worker.ref();
    slot.control.reset();
    slot.watchdog = setTimeout(() => this.kill(slot, this.limitOutcome(job, "wallMs")), wallLeftMs + this.graceMs);
    // The worker keeps the CPU time it used where this thread can read it, even while its engine never yields.
    slot.cpuWatch = setInterval(() => {
      if (slot.control.usedMs() > job.run.limits.cpuMs + this.graceMs) this.kill(slot, this.limitOutcome(job, "cpuMs"));
    }, CPU_WATCH_MS);
    const { code, tools, limits } = job.run;
    const now = Math.floor(Date.now() / 1000) * 1000;
    this.post(slot, { type: "run", id: job.id, code, tools: [...tools], limits, now, wallLeftMs });
  }

  private cancel(job: Job): void {
    const slot = this.slots.find((s) => s.job === job);
    const message = `The script was cancelled after ${job.apiCalls.length} api calls and ${job.logs.length} log lines.`;
    if (!slot) {
      const queued = this.queue.indexOf(job);
      if (queued >= 0) this.queue.splice(queued, 1);
      job.finish({ ok: false, error: { kind: "cancelled", message } });
      return;
    }
    slot.control.cancel();
    this.post(slot, { type: "wake", id: job.id });
    clearTimeout(slot.watchdog);
    slot.watchdog = setTimeout(
      () => this.kill(slot, { ok: false, error: { kind: "cancelled", message } }),
      this.graceMs,
    );
  }

  private spawn(): Slot {
    const control = new Control();
    const worker = new Worker(this.workerFile, {
      workerData: { control: control.buffer },
      // The process's flags, less the one a worker refuses (`node --input-type=module -e …` starting a server).
      execArgv: process.execArgv.filter((flag) => !flag.startsWith("--input-type")),
      resourceLimits: { stackSizeMb: WORKER_STACK_MB },
    });
    const slot: Slot = { worker, control };
    worker.on("message", (message: FromWorker) => this.receive(slot, message));
    worker.on("error", (error) => this.lost(slot, `The sandbox stopped unexpectedly: ${error.message}`));
    worker.on("exit", () => this.lost(slot, "The sandbox stopped unexpectedly."));
    // After the listeners: adding a "message" listener refs the worker's port again, and an idle worker must not
    // keep the process alive (a replaced or spare worker would, until it ran a script).
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private receive(slot: Slot, message: FromWorker): void {
    const job = slot.job;
    if (message.type === "ready") slot.ready = true;
    if (message.type === "ready" || !job || message.id !== job.id) return;
    job.logs.push(...message.logs);
    if (message.type === "done") {
      this.release(slot);
      job.finish(message.outcome);
      this.dispatch();
      return;
    }
    const entry = { tool: message.tool, ok: false };
    job.apiCalls.push(entry);
    void answer({ job, tool: message.tool, args: message.args }).then((reply) => {
      entry.ok = reply.ok;
      if (slot.job === job) this.post(slot, { type: "answer", id: job.id, call: message.call, ...reply });
    });
  }

  private post(slot: Slot, message: ToWorker): void {
    slot.worker.postMessage(message);
  }

  private release(slot: Slot): void {
    clearTimeout(slot.watchdog);
    clearInterval(slot.cpuWatch);
    slot.job = undefined;
    slot.worker.unref();
  }

  /** Ends a run whose worker did not stop it in time: the worker goes, a fresh one takes its place. */
  private kill(slot: Slot, outcome: Omit<ScriptOutcome, "apiCalls" | "logs">): void {
    const job = slot.job;
    this.remove(slot);
    void slot.worker.terminate();
    job?.finish(outcome);
    this.spawn();
    this.dispatch();
  }

  private lost(slot: Slot, message: string): void {
    if (!this.slots.includes(slot)) return;
    const job = slot.job;
    this.remove(slot);
    job?.finish({ ok: false, error: { kind: "exception", message } });
    this.dispatch();
  }

  private remove(slot: Slot): void {
    clearTimeout(slot.watchdog);
    clearInterval(slot.cpuWatch);
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.job = undefined;
  }

  private limitOutcome(job: Job, limit: keyof ScriptLimits): Omit<ScriptOutcome, "apiCalls" | "logs"> {
    const done = { apiCalls: job.apiCalls.length, logLines: job.logs.length };
    const message = limitMessage({ limit, limits: job.run.limits, ...done });
    return { ok: false, error: { kind: "limit", limit, message } };
  }
}

/** The caller's answer as the worker takes it: the value as JSON text, or the message a rejection carries. */
async function answer({ job, tool, args }: { job: Job; tool: string; args: string }) {
  const refuse = (message: string) => ({ ok: false as const, message });
  if (!job.run.tools.includes(tool)) return refuse(`There is no api.${tool}.`);
  try {
    const reply = await job.run.api({ tool, args: JSON.parse(args) as unknown });
    if (!reply.ok) return refuse(String(reply.message));
    return { ok: true as const, json: JSON.stringify(reply.value) as string | undefined };
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
}

let pool: SandboxPool | undefined;

export function sandboxPool(): SandboxPool {
  pool ??= new SandboxPool();
  return pool;
}
