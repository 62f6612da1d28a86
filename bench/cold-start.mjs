// Cold start, side by side with the runtime peer in the same run: spawn → `initialize` → one complete `tools/list`,
// over stdio with raw JSON-RPC lines (no client-side schema check), on GitHub's spec. The servers run alternately,
// each start a fresh process; medians of --runs. Ours runs three times: first start (an empty cache directory, so
// nothing is cached), later start (the cache the first start left), and later start for a 2026-07-28 client, which
// opens with `server/discover` instead of `initialize` (the "initialize" column is then that answer), every request
// carrying the era's `_meta` envelope.
//
// Run: npm run bench:cold-start   Options: --runs N (7)  --spec FILE (GitHub's)  --cli FILE (dist/cli.js)

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const root = new URL("..", import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    spec: { type: "string", default: `${root}node_modules/@octokit/openapi/generated/api.github.com.json` },
    cli: { type: "string", default: `${root}dist/cli.js` },
  },
});
const runs = Math.max(1, Number(args.runs));
const PEER = `${root}node_modules/@ivotoby/openapi-mcp-server/bin/mcp-server.js`;
const PEER_VERSION = JSON.parse(
  readFileSync(`${root}node_modules/@ivotoby/openapi-mcp-server/package.json`, "utf8"),
).version;

/** The `_meta` envelope of a 2026-07-28 client's every request. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "cold-start", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One start: milliseconds to the opening answer and to the complete tools/list, its bytes, peak RSS. */
function start({ command, env, modern = false }) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, command, {
      stdio: ["pipe", "pipe", "ignore"],
      env: { PATH: process.env.PATH, ...env },
    });
    let initialized;
    const fail = (why) => {
      child.kill("SIGKILL");
      reject(new Error(`${command.join(" ")}: ${why}`));
    };
    const timer = setTimeout(() => fail("no tools/list within 60 s"), 60_000);
    child.on("exit", (code) => code !== null && code !== 0 && fail(`exited ${code}`));
    // Lines read in time linear in their length (only each new chunk is searched for the line's end), so a larger
    // listing costs the reader no more than its bytes: appending every chunk to a string and searching it all again
    // is quadratic, and added ~80 ms to a 3.2 MB listing here.
    const pending = [];
    child.stdout.on("data", (chunk) => {
      let from = 0;
      for (let end = chunk.indexOf(10); end >= 0; from = end + 1, end = chunk.indexOf(10, from)) {
        pending.push(chunk.subarray(from, end));
        const line = Buffer.concat(pending).toString("utf8");
        pending.length = 0;
        const message = JSON.parse(line);
        if (message.id === 1) {
          initialized = performance.now();
          const params = modern ? { _meta: ENVELOPE } : {};
          if (!modern)
            child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params })}\n`);
        } else if (message.id === 2) {
          const done = performance.now();
          clearTimeout(timer);
          // The high-water mark of the process's resident memory, read before it goes.
          const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
          const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
          const result = {
            initialize: initialized - t0,
            list: done - initialized,
            total: done - t0,
            rss: peakKb / 1024,
            bytes: Buffer.byteLength(line),
            tools: message.result?.tools?.length ?? 0,
          };
          // The next start waits for this process to be gone: it neither competes for the CPU nor leaves work undone.
          child.removeAllListeners("exit");
          child.once("exit", () => resolve(result));
          child.kill();
        }
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
    });
    const initialize = {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "cold-start", version: "0" },
    };
    const opening = modern
      ? { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } }
      : { jsonrpc: "2.0", id: 1, method: "initialize", params: initialize };
    child.stdin.write(`${JSON.stringify(opening)}\n`);
  });
}

const cache = mkdtempSync(join(tmpdir(), "cold-start-cache-"));
const subjects = [
  {
    name: `peer (@ivotoby/openapi-mcp-server ${PEER_VERSION})`,
    command: [PEER, "--transport", "stdio", "--openapi-spec", args.spec, "--api-base-url", "https://api.github.com"],
    env: {},
  },
  // An empty cache directory before each first start: nothing is cached.
  {
    name: "ours, first start",
    command: [args.cli, "serve", args.spec],
    env: { XDG_CACHE_HOME: cache },
    before: () => rmSync(join(cache, "openapi-mcp"), { recursive: true, force: true }),
  },
  { name: "ours, later start", command: [args.cli, "serve", args.spec], env: { XDG_CACHE_HOME: cache } },
  {
    name: "ours, later start, 2026-07-28 client",
    command: [args.cli, "serve", args.spec],
    env: { XDG_CACHE_HOME: cache },
    modern: true,
  },
];
const results = new Map(subjects.map((s) => [s.name, []]));
// One warm-up of each (the disk cache of the machine, not ours), then alternating rounds.
for (const subject of subjects) {
  subject.before?.();
  await start(subject);
}
for (let round = 0; round < runs; round++) {
  for (const subject of subjects) {
    subject.before?.();
    results.get(subject.name).push(await start(subject));
  }
}
rmSync(cache, { recursive: true, force: true });

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const cell = (list, field, unit) => `${Math.round(median(list.map((r) => r[field])))} ${unit}`;
console.log(
  `Cold start on ${args.spec.split("/").pop()}: ${cpus()[0]?.model.trim()}, ${cpus().length} cores, Node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; medians of ${runs} alternating runs\n`,
);
console.log("| | initialize | tools/list | total | peak RSS | listing | tools |");
console.log("|---|---|---|---|---|---|---|");
for (const [name, list] of results) {
  console.log(
    `| ${name} | ${cell(list, "initialize", "ms")} | ${cell(list, "list", "ms")} | ${cell(list, "total", "ms")} | ${cell(list, "rss", "MB")} | ${(median(list.map((r) => r.bytes)) / 2 ** 20).toFixed(1)} MB | ${median(list.map((r) => r.tools))} |`,
  );
}
// The targets (issue 12), as ratios to the peer measured in the same run: the machine is noisy, the ratio less so.
const peer = median(results.get(subjects[0].name).map((r) => r.total));
const ratio = (name) => median(results.get(name).map((r) => r.total)) / peer;
const met = (ok) => (ok ? "met" : "NOT met");
const first = ratio(subjects[1].name);
const firstRss = median(results.get(subjects[1].name).map((r) => r.rss));
const later = ratio(subjects[2].name);
console.log(
  `\n${subjects[1].name}: total ${first.toFixed(2)}× the peer's (target ≤ 1.0×: ${met(first <= 1)}); peak RSS ${Math.round(firstRss)} MB (target ≤ 100 MB: ${met(firstRss <= 100)})`,
);
console.log(`${subjects[2].name}: total ${later.toFixed(2)}× the peer's (target ≤ 0.5×: ${met(later <= 0.5)})`);
// Issue 13: a 2026-07-28 client starts as fast as a 2025 one (within about 10%).
const modern = ratio(subjects[3].name) / later;
console.log(
  `${subjects[3].name}: total ${modern.toFixed(2)}× the 2025 client's (target ≤ 1.1×: ${met(modern <= 1.1)})`,
);
