// HTTP sessions under load, in one run on one machine:
//   flood    `openapi-mcp serve examples/petstore.openapi.yaml --transport http` as a child process, sent
//            `--requests` unauthenticated `initialize` POSTs on loopback (`--concurrency` at a time): its RSS before,
//            its peak RSS (VmHWM, from /proc: Linux), the statuses it answered, and what the last request got;
//   memory   the same server in this process (run with --expose-gc; the script re-runs itself so), `--sessions`
//            sessions opened and left idle: heap and RSS per session after a full GC.
//
// Run: npm run build && node bench/sessions.mjs
// Options: --requests N (20000)  --concurrency N (16)  --sessions N (1000)
//          --cli FILE (dist/cli.js: point it at another build to compare)  --only flood|memory

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    requests: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "16" },
    sessions: { type: "string", default: "1000" },
    cli: { type: "string", default: `${root}dist/cli.js` },
    only: { type: "string" },
  },
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
});

/** One initialize POST: its status, Retry-After, session id and body. */
function initialize({ port, agent }) {
  return new Promise((done, fail) => {
    const headers = {
      host: `127.0.0.1:${port}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers, agent }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk) => (body += chunk));
      res.on("end", () =>
        done({
          status: res.statusCode,
          retryAfter: res.headers["retry-after"],
          session: res.headers["mcp-session-id"],
          body,
        }),
      );
    });
    req.on("error", fail);
    req.end(INITIALIZE);
  });
}

/** Sends `count` initializes, `concurrency` at a time; returns the statuses counted and the last answer. */
async function send({ port, count, concurrency }) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses = {};
  let next = 0;
  let last;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const answer = await initialize({ port, agent });
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (index === count - 1) last = answer;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { statuses, last };
}

const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

function procStatus(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

async function flood() {
  const count = Number(options.requests);
  const cli = resolve(options.cli);
  const child = spawn(
    process.execPath,
    [cli, "serve", `${root}examples/petstore.openapi.yaml`, "--transport", "http", "--port", "0"],
    {
      env: { ...process.env, API_KEY_API_KEY: "bench-key-0123456789" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const port = await new Promise((done, fail) => {
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const found = /at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (found) done(Number(found[1]));
    });
    child.on("exit", () => fail(new Error(`the server exited:\n${stderr}`)));
  });
  const before = procStatus(child.pid, "VmRSS");
  const started = Date.now();
  const { statuses, last } = await send({ port, count, concurrency: Number(options.concurrency) });
  const seconds = (Date.now() - started) / 1000;
  const peak = procStatus(child.pid, "VmHWM");
  child.kill("SIGTERM");
  console.log(
    `\nflood: ${count.toLocaleString("en-US")} initialize requests to ${cli.replace(root, "")} in ${seconds.toFixed(1)} s`,
  );
  console.log(`  RSS before ${megabytes(before)}, peak ${megabytes(peak)}`);
  console.log(
    `  statuses: ${Object.entries(statuses)
      .map(([s, n]) => `${s} × ${n.toLocaleString("en-US")}`)
      .join(", ")}`,
  );
  console.log(
    `  request ${count.toLocaleString("en-US")}: ${last.status}${last.retryAfter ? `, Retry-After: ${last.retryAfter}` : ""}, ${last.session ? `session ${last.session}` : last.body}`,
  );
  recordSummary({
    bench: "sessions",
    measure: `${count.toLocaleString("en-US")} initialize: peak RSS`,
    value: megabytes(peak),
    floor: `${megabytes(before)} before`,
    target: "bounded",
  });
}

async function memory() {
  const count = Number(options.sessions);
  const { serve } = await import(`${root}dist/app/serve.js`);
  const running = await serve(`${root}examples/petstore.openapi.yaml`, {
    transport: "http",
    port: 0,
    env: { API_KEY_API_KEY: "bench-key-0123456789" },
    sessions: { maxSessions: count + 1 },
    log: () => {},
  });
  const port = Number(new URL(running.url).port);
  const measure = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc();
      await new Promise((done) => setTimeout(done, 50));
    }
    return { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
  };
  // One session first, so what every session shares (modules, the listing) is loaded before the baseline.
  await send({ port, count: 1, concurrency: 1 });
  const base = await measure();
  const { statuses } = await send({ port, count, concurrency: 16 });
  const after = await measure();
  await running.close();
  const perHeap = (after.heap - base.heap) / count;
  const perRss = (after.rss - base.rss) / count;
  console.log(
    `\nmemory: ${count.toLocaleString("en-US")} idle sessions (${JSON.stringify(statuses)}), after a full GC:`,
  );
  console.log(
    `  heap +${megabytes(after.heap - base.heap)} (${(perHeap / 1024).toFixed(1)} KB a session), RSS +${megabytes(after.rss - base.rss)} (${(perRss / 1024).toFixed(1)} KB a session)`,
  );
  recordSummary({
    bench: "sessions",
    measure: "heap per idle session",
    value: `${(perHeap / 1024).toFixed(1)} KB`,
    floor: `RSS ${(perRss / 1024).toFixed(1)} KB`,
    target: "-",
  });
}

if (!globalThis.gc) {
  const child = spawn(process.execPath, ["--expose-gc", ...process.argv.slice(1)], { stdio: "inherit" });
  child.on("exit", (code) => process.exit(code ?? 1));
} else {
  printMachine();
  if (options.only !== "memory") await flood();
  if (options.only !== "flood") await memory();
}
