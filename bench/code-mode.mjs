// What code mode saves a model on multi-step work: each task of bench/code-mode-tasks.mjs run for real by its
// reference plan in tools, dynamic and code mode (bench/code-mode-agent.mjs), against `serve` (a child process, the
// SDK's Client over stdio) and the local GitHub (bench/github-upstream.mjs, seed 1, reset before each run). Tokens
// = bytes / 4 of what the plan puts in the model's context: the listing (tools/list, once) + the requests it writes
// + the results it reads. Checks that each mode sent the upstream the same writes (and reads) and that every
// response the upstream sent passes the project's own output validation.
//
// Run: npm run bench:code-mode   (--modes tools,dynamic,code  --tasks id,id  to run part of it)

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { approximateTokens } from "../dist/catalog/listing.js";
import { Agent } from "./code-mode-agent.mjs";
import { TASKS } from "./code-mode-tasks.mjs";
import { GITHUB_SPEC } from "./corpus-check.mjs";
import { startGithubUpstream } from "./github-upstream.mjs";
import { median, printMachine, recordSummary } from "./report.mjs";
import { effects, printTable, sameEffects } from "./code-mode-report.mjs";

const { values: options } = parseArgs({
  options: { modes: { type: "string", default: "tools,dynamic,code" }, tasks: { type: "string" } },
});
const MODES = options.modes.split(",");
const tasks = options.tasks ? TASKS.filter((t) => options.tasks.split(",").includes(t.id)) : TASKS;
const cli = new URL("../dist/cli.js", import.meta.url).pathname;
const cache = mkdtempSync(join(tmpdir(), "bench-code-mode-"));

printMachine();
const upstream = await startGithubUpstream({ seed: 1 });

/** `serve` in one mode, connected; undefined (with the reason) when this build has no such mode. */
async function serve(mode) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "serve", GITHUB_SPEC, "--mode", mode, "--base-url", upstream.url, "--auth", "bearer:GITHUB_TOKEN"],
    env: { ...process.env, GITHUB_TOKEN: "bench-token", XDG_CACHE_HOME: cache },
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const client = new Client({ name: "bench-code-mode", version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    return { reason: (log.trim().split("\n")[0] || String(error)).slice(0, 200) };
  }
  const listed = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: 300_000 });
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { client, listed, listingBytes: Buffer.byteLength(JSON.stringify({ tools: listed })) };
}

const runs = []; // { task, mode, listing, requests, results, total, calls, answer, effects }
const skipped = {};
for (const mode of MODES) {
  const server = await serve(mode);
  if (!server.client) {
    skipped[mode] = server.reason;
    console.log(`${mode} mode: not run (${server.reason})`);
    continue;
  }
  for (const task of tasks) {
    upstream.reset();
    const agent = new Agent({ client: server.client, mode, listed: server.listed });
    const answer = await agent.run(task);
    for (const note of agent.notes) console.log(`  note (${mode}): ${note}`);
    const listing = approximateTokens(server.listingBytes);
    const requests = approximateTokens(agent.requestBytes);
    const results = approximateTokens(agent.resultBytes);
    runs.push({
      task: task.id,
      mode,
      listing,
      requests,
      results,
      total: listing + requests + results,
      calls: agent.calls,
    });
    runs.at(-1).answer = answer;
    runs.at(-1).effects = effects(upstream.requests);
  }
  await server.client.close();
}
await upstream.close();

printTable({ runs, tasks, modes: MODES.filter((m) => !skipped[m]) });
const problems = sameEffects({ runs, tasks });
for (const problem of problems) console.log(`EFFECTS DIFFER: ${problem}`);
if (problems.length === 0) console.log("Upstream effects: the same writes and reads in every mode, for every task.");
console.log(
  `Upstream responses: ${upstream.served} checked with the engine's validator, ${upstream.invalid.length} refused${upstream.invalid.length ? `: ${JSON.stringify(upstream.invalid.slice(0, 3))}` : ""}.`,
);

const medianOf = (mode) => median(runs.filter((r) => r.mode === mode).map((r) => r.total));
const ratio = (a, b) => medianOf(a) / medianOf(b);
const n = (value) => Math.round(value).toLocaleString("en-US");
for (const mode of MODES.filter((m) => !skipped[m])) console.log(`median ${mode}: ${n(medianOf(mode))} tokens`);
if (!skipped.code && MODES.includes("code")) {
  for (const [other, target] of [
    ["tools", 10],
    ["dynamic", 5],
  ]) {
    if (!MODES.includes(other)) continue;
    const value = ratio(other, "code");
    console.log(`${other} / code: ${value.toFixed(1)}× (target ≥ ${target}×: ${value >= target ? "met" : "NOT MET"})`);
    recordSummary({
      bench: "code-mode",
      measure: `${tasks.length} GitHub tasks: median tokens, ${other} mode / code mode`,
      value: `${value.toFixed(1)}× (${n(medianOf(other))} / ${n(medianOf("code"))})`,
      target: `≥ ${target}×`,
      met: value >= target && problems.length === 0,
    });
  }
} else if (MODES.includes("tools") && MODES.includes("dynamic")) {
  console.log(
    `tools / dynamic: ${ratio("tools", "dynamic").toFixed(1)}× (code mode not run: ${skipped.code ?? "not asked"})`,
  );
}
process.exitCode = problems.length > 0 || upstream.invalid.length > 0 ? 1 : 0;
