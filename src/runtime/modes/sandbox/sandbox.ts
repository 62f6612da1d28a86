// One script's run inside a worker: a fresh QuickJS runtime and context on a fresh WebAssembly instance (nothing
// of another run's heap is left to see), the prelude's `api` and `console`, then the script's promise driven to
// its end: jobs run in slices timed for the CPU limit, answers are copied in as JSON text between slices, and any
// limit sets `ending`, which makes the interrupt handler stop the engine at its next check.

import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { type Control, epochNow, limitMessage } from "./protocol.js";
import { PRELUDE, SCRIPT_FILE, wrapScript } from "./prelude.js";
import { copyOut, describeError } from "./sandbox-values.js";
import type { ScriptLimits, ScriptOutcome } from "./script.js";

/** The deepest stack QuickJS gets, whatever stackBytes says; the worker's host stack is sized for it. */
export const MAX_STACK_BYTES = 4 * 1024 * 1024;

const JOB_BATCH = 1_000;

type Outcome = Omit<ScriptOutcome, "apiCalls" | "logs">;
type Ending = { kind: "limit"; limit: keyof ScriptLimits } | { kind: "cancelled" };

export interface SandboxOptions {
  module: QuickJSWASMModule;
  code: string;
  tools: readonly string[];
  limits: ScriptLimits;
  /** The fixed clock's reading, epoch ms. */
  now: number;
  wallLeftMs: number;
  control: Control;
  /** The engine's WebAssembly memory: its size now, and the most it may grow to. */
  memory: { bytes: () => number; maximumBytes: number };
  /** Sends one api call to the main thread, with the log lines written since the last send. */
  send: (call: { call: number; tool: string; args: string; logs: string[] }) => void;
}

export class Sandbox {
  readonly logs: string[] = [];
  private flushed = 0;
  private logBytes = 0;
  private calls = 0;
  private readonly pending = new Map<number, QuickJSDeferredPromise>();
  private ending: Ending | undefined;
  private cpuUsed = 0;
  private sliceStart: number | undefined;
  private readonly deadline: number;
  private readonly tools: Set<string>;
  private wakeUp: (() => void) | undefined;
  private context: QuickJSContext | undefined;

  constructor(private readonly options: SandboxOptions) {
    this.deadline = performance.now() + options.wallLeftMs;
    this.tools = new Set(options.tools);
  }

  /** Never throws: a failure of the engine itself (its host stack overflowing, say) is an outcome too. */
  async run(): Promise<Outcome> {
    try {
      return await this.drive();
    } catch (error) {
      if (this.ending) return this.ended();
      if (error instanceof RangeError && /call stack/i.test(error.message)) return this.end({ limit: "stackBytes" });
      return { ok: false, error: { kind: "exception", message: `The sandbox failed: ${String(error)}` } };
    }
  }

  /** Log lines not yet sent to the main thread. */
  unsentLogs(): string[] {
    const lines = this.logs.slice(this.flushed);
    this.flushed = this.logs.length;
    return lines;
  }

  deliver(
    answer: { call: number; ok: true; json?: string | undefined } | { call: number; ok: false; message: string },
  ): void {
    const deferred = this.pending.get(answer.call);
    const context = this.context;
    if (!deferred || !context || this.ending) return;
    this.pending.delete(answer.call);
    if (!answer.ok) deferred.reject(context.newError(answer.message));
    else if (answer.json === undefined) deferred.resolve(context.undefined);
    else {
      const text = context.newString(answer.json);
      const parsed = this.slice(() => context.callFunction(this.parseFn!, context.undefined, text));
      if (parsed.error) {
        const error = describeError(context, parsed.error);
        if (error.limit) this.ending = { kind: "limit", limit: error.limit };
        else deferred.reject(parsed.error);
      } else deferred.resolve(parsed.value);
    }
    this.wake();
  }

  /** Ends a wait for answers, e.g. to see a cancellation. */
  wake(): void {
    this.wakeUp?.();
  }

  private async drive(): Promise<Outcome> {
    const { module, limits } = this.options;
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    // QuickJS's stack lives in the engine's own (about 5 MiB): a limit beyond it would make every call overflow.
    runtime.setMaxStackSize(Math.min(limits.stackBytes, MAX_STACK_BYTES));
    runtime.setInterruptHandler(() => this.interrupt());
    const context = runtime.newContext();
    this.context = context;
    this.prelude(context);
    const evaluated = this.slice(() => context.evalCode(wrapScript(this.options.code), SCRIPT_FILE));
    if (evaluated.error) return this.failed(context, evaluated.error, { compile: true });
    const promise = evaluated.value;
    for (;;) {
      const jobs = this.runJobs(runtime);
      if (this.ending) return this.ended();
      if (jobs) return this.failed(context, jobs);
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") return this.returned(context, state.value);
      if (state.type === "rejected") return this.failed(context, state.error);
      if (this.pending.size === 0) {
        const message = "The script awaits a promise that nothing can settle (only api calls settle promises here).";
        return { ok: false, error: { kind: "exception", message } };
      }
      await this.nextEvent();
      if (this.ending) return this.ended();
    }
  }

  /**
   * Runs the queued jobs in batches, checking the limits between them: a storm of tiny jobs may never reach the
   * points where the engine asks its interrupt handler. Gives the error a job ended with, if one did.
   */
  private runJobs(runtime: QuickJSRuntime): QuickJSHandle | undefined {
    for (;;) {
      const jobs = this.slice(() => runtime.executePendingJobs(JOB_BATCH));
      if (jobs.error) return jobs.error;
      if (jobs.value < JOB_BATCH || this.interrupt()) return undefined;
    }
  }

  private prelude(context: QuickJSContext): void {
    const { tools, now, limits } = this.options;
    const setup = context.unwrapResult(context.evalCode(PRELUDE, "prelude.js"));
    const hostCall = context.newFunction("call", (name, args) => this.onCall(context, name, args));
    const hostLog = context.newFunction("log", (text) => this.onLog(context, text));
    const inputs = [hostCall, hostLog, context.newString(JSON.stringify(tools))];
    inputs.push(context.newNumber(now), context.newNumber(limits.maxOutputBytes));
    context.unwrapResult(this.slice(() => context.callFunction(setup, context.undefined, ...inputs)));
    // Taken before the script runs, so nothing it does to JSON changes how answers are copied in or values out.
    const json = context.getProp(context.global, "JSON");
    this.parseFn = context.getProp(json, "parse");
    this.stringifyFn = context.getProp(json, "stringify");
  }

  private parseFn: QuickJSHandle | undefined;
  private stringifyFn: QuickJSHandle | undefined;

  private onCall(context: QuickJSContext, nameHandle: QuickJSHandle, argsHandle: QuickJSHandle) {
    if (this.ending) return { error: context.newError("The script is being stopped.") };
    const tool = context.typeof(nameHandle) === "string" ? context.getString(nameHandle) : "";
    if (!this.tools.has(tool)) return { error: context.newError(`There is no api.${tool}.`) };
    if (this.calls >= this.options.limits.maxApiCalls) {
      this.ending = { kind: "limit", limit: "maxApiCalls" };
      return { error: context.newError("The script made too many api calls.") };
    }
    this.calls += 1;
    const args = context.typeof(argsHandle) === "string" ? context.getString(argsHandle) : "null";
    const deferred = context.newPromise();
    this.pending.set(this.calls, deferred);
    this.options.send({ call: this.calls, tool, args, logs: this.unsentLogs() });
    return deferred.handle;
  }

  private onLog(context: QuickJSContext, textHandle: QuickJSHandle) {
    if (this.ending) return { error: context.newError("The script is being stopped.") };
    const text = context.typeof(textHandle) === "string" ? context.getString(textHandle) : "";
    const bytes = Buffer.byteLength(text) + 1;
    if (this.logBytes + bytes > this.options.limits.maxOutputBytes) {
      this.ending = { kind: "limit", limit: "maxOutputBytes" };
      return { error: context.newError("The script wrote too much.") };
    }
    this.logBytes += bytes;
    this.logs.push(text);
    return undefined;
  }

  private returned(context: QuickJSContext, value: QuickJSHandle): Outcome {
    const room = this.options.limits.maxOutputBytes - this.logBytes;
    const copied = this.slice(() => copyOut({ context, value, stringify: this.stringifyFn!, room }));
    if (this.ending) return this.ended();
    if (copied.kind === "tooLarge") return this.end({ limit: "maxOutputBytes" });
    if (copied.kind === "thrown") {
      const failed = this.failed(context, copied.error);
      if (failed.error?.kind !== "exception") return failed;
      const message = `The return value cannot be copied out as JSON: ${failed.error.message}`;
      return { ok: false, error: { kind: "exception", message } };
    }
    return { ok: true, value: copied.value };
  }

  private failed(context: QuickJSContext, error: QuickJSHandle, { compile = false } = {}): Outcome {
    // Out of memory so far that not even the error could be made, the engine throws null.
    const { memory } = this.options;
    if (context.typeof(error) === "object" && context.dump(error) === null && memory.bytes() > memory.maximumBytes / 2)
      return this.end({ limit: "memoryBytes" });
    const lines = this.options.code.split("\n").length;
    const described = this.slice(() => describeError(context, error, { compile, lines }));
    if (this.ending) return this.ended();
    if (described.limit) return this.end({ limit: described.limit });
    return { ok: false, error: described.error };
  }

  private end({ limit }: { limit: keyof ScriptLimits }): Outcome {
    this.ending = { kind: "limit", limit };
    return this.ended();
  }

  private ended(): Outcome {
    const ending = this.ending!;
    const done = { apiCalls: this.calls, logLines: this.logs.length };
    if (ending.kind === "cancelled") {
      const message = `The script was cancelled after ${done.apiCalls} api calls and ${done.logLines} log lines.`;
      return { ok: false, error: { kind: "cancelled", message } };
    }
    const message = limitMessage({ limit: ending.limit, limits: this.options.limits, ...done });
    return { ok: false, error: { kind: "limit", limit: ending.limit, message } };
  }

  private interrupt(): boolean {
    if (this.ending) return true;
    if (this.options.control.cancelled) this.ending = { kind: "cancelled" };
    else {
      const now = performance.now();
      if (now >= this.deadline) this.ending = { kind: "limit", limit: "wallMs" };
      else if (this.sliceStart !== undefined && this.cpuUsed + (now - this.sliceStart) > this.options.limits.cpuMs)
        this.ending = { kind: "limit", limit: "cpuMs" };
    }
    return this.ending !== undefined;
  }

  /** Runs engine work, counting its time against the CPU limit. */
  private slice<T>(work: () => T): T {
    if (this.sliceStart !== undefined) return work();
    this.sliceStart = performance.now();
    this.options.control.slice(epochNow(), this.cpuUsed);
    try {
      return work();
    } finally {
      this.cpuUsed += performance.now() - this.sliceStart;
      this.sliceStart = undefined;
      this.options.control.slice(0, this.cpuUsed);
    }
  }

  /** Waits for an answer, a wake-up or the wall deadline. */
  private nextEvent(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.ending ??= { kind: "limit", limit: "wallMs" };
          resolve();
        },
        Math.max(0, this.deadline - performance.now()),
      );
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        if (this.options.control.cancelled) this.ending ??= { kind: "cancelled" };
        resolve();
      };
    });
  }
}
