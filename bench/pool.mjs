// Runs specs through worker processes, one spec at a time per worker, so a spec that exhausts memory, overflows
// the stack in a way Node cannot recover from, or hangs costs only its worker: it is recorded as a crash or a
// timeout, and a fresh worker takes the next spec. Shared by the corpus runs (corpus-full.mjs, first-contact.mjs).
//
// A worker module sends `{ ready: true }` once, then answers each `{ file, ...options }` message with
// `{ file, result }`.

import { fork } from "node:child_process";

/**
 * Every spec's result, by name. `onResult(spec, result, done)` is told as each one finishes. Specs are taken
 * largest first, so the long ones overlap with the many small ones instead of ending the run alone.
 */
export async function runPool({ worker, specs, jobs, timeoutMs, message = () => ({}), onResult = () => {} }) {
  const queue = [...specs].sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  const results = new Map();

  const runWorker = async () => {
    let child;
    let stderrTail = "";
    const start = () =>
      new Promise((resolve, reject) => {
        // Headroom for graph-beta (46 MB, 22k tools) in one process; otherwise Node's defaults, so a stack
        // overflow here is one a user would hit too.
        child = fork(worker, [], { execArgv: ["--max-old-space-size=8192"], silent: true });
        stderrTail = "";
        child.stdout.resume();
        child.stderr.on("data", (chunk) => {
          stderrTail = (stderrTail + chunk).slice(-2000);
        });
        child.once("message", () => {
          child.removeAllListeners("exit");
          resolve();
        });
        child.once("exit", (code) => reject(new Error(`worker failed to start (exit ${code}): ${stderrTail}`)));
      });
    await start();
    while (queue.length > 0) {
      const spec = queue.shift();
      const result = await new Promise((resolve) => {
        const t0 = performance.now();
        const timer = setTimeout(() => {
          child.removeAllListeners("close");
          child.kill("SIGKILL");
          resolve({
            outcome: "timeout",
            message: `no result after ${timeoutMs / 1000} s`,
            loadMs: performance.now() - t0,
          });
        }, timeoutMs);
        child.once("message", (answer) => {
          clearTimeout(timer);
          child.removeAllListeners("close");
          resolve(answer.result);
        });
        // "close", not "exit": by then the dying worker's stderr (an out-of-memory report, say) has all arrived.
        child.once("close", (code, signal) => {
          clearTimeout(timer);
          child.removeAllListeners("message");
          const why = signal ? `signal ${signal}` : `exit code ${code}`;
          resolve({
            outcome: "crash",
            message: `worker died (${why}): ${stderrTail.trim().split("\n").slice(-3).join(" | ")}`,
            loadMs: performance.now() - t0,
          });
        });
        child.send({ file: spec.file, ...message(spec) });
      });
      results.set(spec.name, result);
      onResult(spec, result, results.size);
      if ((result.outcome === "crash" && result.message.startsWith("worker died")) || result.outcome === "timeout")
        await start();
    }
    child.kill();
  };

  await Promise.all(Array.from({ length: Math.min(jobs, specs.length) }, runWorker));
  return results;
}

/** `12m05s` since `started` (a performance.now() reading). */
export function elapsedSince(started) {
  const s = Math.round((performance.now() - started) / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
