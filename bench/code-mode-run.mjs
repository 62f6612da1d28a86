// Runs the code-mode bench's tasks (bench/code-mode-tasks.mjs) for real: `serve <GitHub's spec> --mode <mode>` as a
// child process, the SDK's Client over stdio, the reference agent (bench/code-mode-agent.mjs), and the local GitHub
// reset before each task. Shared by the bench (bench/code-mode.mjs) and its test (test/bench/code-mode.test.ts).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { approximateTokens } from "../dist/catalog/listing.js";
import { Agent } from "./code-mode-agent.mjs";
import { effects } from "./code-mode-report.mjs";
import { GITHUB_SPEC } from "./corpus-check.mjs";

const CLI = new URL("../dist/cli.js", import.meta.url).pathname;

/** `serve` in one mode, connected and listed; `{ reason }` when this build has no such mode. */
async function serve({ mode, upstream, env }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", GITHUB_SPEC, "--mode", mode, "--base-url", upstream.url, "--auth", "bearer:GITHUB_TOKEN"],
    env: { ...process.env, ...env, GITHUB_TOKEN: "bench-token" },
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

/**
 * Each task in each mode: `runs` (task, mode, tokens of listing, requests and results, calls, the answer as JSON,
 * the upstream's effects), `skipped` (mode → why), `notes` (what the agent noticed, e.g. a search that missed).
 */
export async function runTasks({ modes, tasks, upstream, env = {} }) {
  const runs = [];
  const skipped = {};
  const notes = [];
  for (const mode of modes) {
    const server = await serve({ mode, upstream, env });
    if (!server.client) {
      skipped[mode] = server.reason;
      continue;
    }
    try {
      for (const task of tasks) {
        upstream.reset();
        const agent = new Agent({ client: server.client, mode });
        const answer = await agent.run(task);
        notes.push(...agent.notes.map((note) => `${mode}: ${note}`));
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
          answer,
          effects: effects(upstream.requests),
        });
      }
    } finally {
      await server.client.close();
    }
  }
  return { runs, skipped, notes };
}
