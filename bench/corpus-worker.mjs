// One worker of bench/corpus-full.mjs: loads and checks the specs its parent sends, one at a time, and answers
// with a compact result. It runs in its own process so that a spec that exhausts memory, overflows the stack in a
// way Node cannot recover from, or hangs costs only this worker, not the whole run.

import { runSpec } from "./corpus-check.mjs";

// Keep IPC messages small: a catalog with 20k duplicate names must not be sent name by name.
const EXAMPLES = 5;

function compact(result) {
  if (!result.problems) return result;
  const problems = {};
  for (const [kind, list] of Object.entries(result.problems)) {
    problems[kind] = { count: list.length, examples: list.slice(0, EXAMPLES) };
  }
  return { ...result, problems };
}

process.on("message", async ({ file, maxTools }) => {
  const result = await runSpec(file, maxTools ? { maxTools } : {});
  process.send({ file, result: compact(result) });
});

// The parent went away (killed, or interrupted): stop rather than linger.
process.on("disconnect", () => process.exit(0));

process.send({ ready: true });
