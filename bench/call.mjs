// tools/call latency and throughput over stdio, against the floor of the same HTTP request made directly with
// undici, in one run on one machine. A loopback upstream (bench/call-child.mjs upstream, its own process) answers a
// small JSON object. Measured:
//   direct  an undici keep-alive Agent (as the engine's) sending the engine's request (URL, Accept) and parsing
//           the JSON: the floor the targets are stated against;
//   ours    `openapi-mcp serve bench/fixtures/widgets.openapi.yaml` as a child process, driven by the MCP SDK's
//           Client over StdioClientTransport, calling `getWidget` (argument validation, request building, the
//           request, response parsing, output-schema validation, structured content);
//   mcp     for reference, the same Client against our MCP binding with a tool that answers the same result at
//           once (bench/call-child.mjs echo): what MCP over stdio with the SDK on both ends costs, with no HTTP.
// One call at a time (latency p50/p99) and 16 in flight (throughput), alternating the three in each round so
// that drift in machine load hits all alike; the table shows medians over rounds. CPU time per call of each
// process (from /proc, Linux) shows where the work is.
//
// Run: npm run build && node bench/call.mjs
// Options: --rounds N (3)  --calls N one-at-a-time calls a round (2000)  --load-calls N calls at 16 in flight a
//          round (5000)  --concurrency N (16)  --warmup N (500)  --profile DIR (run our server under --cpu-prof,
//          write the profile to DIR and print where its time goes)

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { median, printMachine, recordSummary } from "./report.mjs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Agent } from "undici";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "2000" },
    "load-calls": { type: "string", default: "5000" },
    concurrency: { type: "string", default: "16" },
    warmup: { type: "string", default: "500" },
    profile: { type: "string" },
  },
});
const ROUNDS = Number(options.rounds);
const CALLS = Number(options.calls);
const LOAD_CALLS = Number(options["load-calls"]);
const CONCURRENCY = Number(options.concurrency);
const WARMUP = Number(options.warmup);
const TARGETS = { p50: 1.8, throughput: 0.65 };

const root = new URL("..", import.meta.url).pathname;
const CLI = `${root}dist/cli.js`;
const SPEC = `${root}bench/fixtures/widgets.openapi.yaml`;
const CHILD = `${root}bench/call-child.mjs`;
const ARGUMENTS = { id: "42", verbose: true };
const EXPECTED = { id: 42, name: "widget", price: 9.5, tags: ["blue", "small"] };
if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` first");

// --- the upstream, in its own process ---------------------------------------------------------------------------
const upstream = spawn(process.execPath, [CHILD, "upstream"], { stdio: ["pipe", "pipe", "inherit"] });
const { port } = JSON.parse(await firstLine(upstream.stdout));
const origin = `http://127.0.0.1:${port}`;

// --- direct: undici with a keep-alive Agent, the request the engine sends ---------------------------------------
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
async function direct() {
  const response = await agent.request({
    origin,
    path: `/v1/widgets/${ARGUMENTS.id}?verbose=${ARGUMENTS.verbose}`,
    method: "GET",
    headers: { accept: "application/json" },
  });
  const data = await response.body.json();
  if (response.statusCode !== 200 || data.id !== 42)
    throw new Error(`direct: unexpected answer ${response.statusCode}`);
  return data;
}

// --- ours and the MCP floor: the SDK Client over stdio ------------------------------------------------------------
const profileDir = options.profile ? resolve(options.profile) : undefined;
if (profileDir) mkdirSync(profileDir, { recursive: true });

async function connect(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" });
  let log = "";
  transport.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const client = new Client({ name: "bench-call", version: "0.0.0" });
  await client.connect(transport);
  const call = async () => {
    const result = await client.callTool({ name: "getWidget", arguments: ARGUMENTS });
    if (result.isError) throw new Error(`error result: ${JSON.stringify(result.content)}\n${log}`);
    return result;
  };
  // The same answer as direct gets, before anything is timed.
  const first = await call();
  if (JSON.stringify(first.structuredContent) !== JSON.stringify(EXPECTED)) {
    throw new Error(`unexpected structured content ${JSON.stringify(first.structuredContent)}\n${log}`);
  }
  return { call, client, pid: transport.pid };
}

const oursServer = await connect([
  ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
  CLI,
  "serve",
  SPEC,
  "--base-url",
  `${origin}/v1`,
]);
const mcpServer = await connect([CHILD, "echo"]);
await direct();

const SUBJECTS = [
  { name: "direct", call: direct, pid: undefined },
  { name: "mcp", call: mcpServer.call, pid: mcpServer.pid },
  { name: "ours", call: oursServer.call, pid: oursServer.pid },
];

// --- measurement ------------------------------------------------------------------------------------------------
/** Latencies (ms) of `count` calls made one at a time. */
async function sequential(call, count) {
  const latencies = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    latencies[i] = performance.now() - started;
  }
  return latencies;
}

/** `count` calls with `concurrency` in flight: calls/s over the whole, and each call's latency. */
async function loaded(call, count, concurrency) {
  const latencies = new Float64Array(count);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const begun = performance.now();
      await call();
      latencies[i] = performance.now() - begun;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: count / seconds, latencies };
}

/** CPU milliseconds (user + system) each process has used so far: this one, the upstream, and a server. */
function cpuNow(serverPid) {
  const own = process.cpuUsage();
  return {
    client: (own.user + own.system) / 1000,
    upstream: processCpuMs(upstream.pid),
    server: serverPid === undefined ? 0 : processCpuMs(serverPid),
  };
}

/** From /proc/<pid>/stat (utime + stime, in clock ticks of 10 ms); NaN where there is no /proc. */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

printMachine();
console.log(
  `Upstream: loopback node:http in its own process, a ${JSON.stringify(EXPECTED).length}-byte JSON answer. ` +
    `direct: undici Agent request + JSON parse; ours: tools/call getWidget over stdio to \`openapi-mcp serve\`` +
    `${profileDir ? " (under --cpu-prof)" : ""}; mcp: the same client against an MCP server whose tool answers at once (no HTTP).`,
);
console.log(
  `${ROUNDS} rounds, each: ${CALLS} calls one at a time, ${LOAD_CALLS} calls with ${CONCURRENCY} in flight ` +
    `(after ${WARMUP} warm-up calls of each kind); medians over rounds.`,
);
console.log();

for (const { call } of SUBJECTS) {
  await sequential(call, WARMUP);
  await loaded(call, WARMUP, CONCURRENCY);
}

const figures = Object.fromEntries(SUBJECTS.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const row = Object.fromEntries(SUBJECTS.map((s) => [s.name, {}]));
  for (const { name, call } of SUBJECTS) {
    const latencies = await sequential(call, CALLS);
    Object.assign(row[name], { p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
  }
  for (const { name, call, pid } of SUBJECTS) {
    const before = cpuNow(pid);
    const { perSecond, latencies } = await loaded(call, LOAD_CALLS, CONCURRENCY);
    const after = cpuNow(pid);
    const perCall = (key) => ((after[key] - before[key]) / LOAD_CALLS) * 1000;
    Object.assign(row[name], {
      perSecond,
      loadP50: percentile(latencies, 50),
      loadP99: percentile(latencies, 99),
      cpuClient: perCall("client"),
      cpuServer: perCall("server"),
      cpuUpstream: perCall("upstream"),
    });
  }
  for (const { name } of SUBJECTS) figures[name].push(row[name]);
  process.stderr.write(
    `round ${round + 1}/${ROUNDS}: p50 ${SUBJECTS.map((s) => row[s.name].p50.toFixed(3)).join(" / ")} ms, ` +
      `${SUBJECTS.map((s) => Math.round(row[s.name].perSecond)).join(" / ")} calls/s (direct / mcp / ours)\n`,
  );
}

await oursServer.client.close();
await mcpServer.client.close();
await agent.close();
upstream.stdin.end();

// --- report -----------------------------------------------------------------------------------------------------
const pick = (name, key) => median(figures[name].map((f) => f[key]));
const ms = (v) => `${v.toFixed(3)} ms`;
const perSecond = (v) => Math.round(v).toLocaleString("en-US");
const rows = [
  ["p50, one at a time", "p50", ms, `≤ ${TARGETS.p50}x`, (r) => r <= TARGETS.p50],
  ["p99, one at a time", "p99", ms],
  [
    `calls/s, ${CONCURRENCY} in flight`,
    "perSecond",
    perSecond,
    `≥ ${TARGETS.throughput}x`,
    (r) => r >= TARGETS.throughput,
  ],
  [`p50, ${CONCURRENCY} in flight`, "loadP50", ms],
  [`p99, ${CONCURRENCY} in flight`, "loadP99", ms],
];
const header = [
  "measure",
  "direct (undici)",
  "ours (tools/call, stdio)",
  "ours/direct",
  "target",
  "met",
  "mcp floor",
  "mcp/direct",
];
const table = [header];
for (const [label, key, format, target, met] of rows) {
  const ratio = pick("ours", key) / pick("direct", key);
  if (target)
    recordSummary({
      bench: "call",
      measure: `${label} (ours / direct undici)`,
      value: `${ratio.toFixed(2)}×`,
      floor: `MCP floor ${(pick("mcp", key) / pick("direct", key)).toFixed(2)}×`,
      target,
      met: met(ratio),
    });
  table.push([
    label,
    format(pick("direct", key)),
    format(pick("ours", key)),
    `${ratio.toFixed(2)}x`,
    target ?? "-",
    met ? (met(ratio) ? "yes" : "no") : "-",
    format(pick("mcp", key)),
    `${(pick("mcp", key) / pick("direct", key)).toFixed(2)}x`,
  ]);
}
printTable(table);

console.log();
console.log(`CPU time per call at ${CONCURRENCY} in flight (µs, user + system, from /proc; 10 ms ticks):`);
const cpuTable = [["", "client process", "MCP server", "upstream", "all"]];
for (const { name } of SUBJECTS) {
  const [client, server, up] = ["cpuClient", "cpuServer", "cpuUpstream"].map((key) => pick(name, key));
  const label = { direct: "direct", mcp: "mcp floor", ours: "ours" }[name];
  cpuTable.push(
    [label, client, name === "direct" ? Number.NaN : server, up, client + (name === "direct" ? 0 : server) + up].map(
      (v, i) => (i === 0 ? v : Number.isNaN(v) ? "-" : Math.round(v)),
    ),
  );
}
printTable(cpuTable);

if (profileDir) {
  // Our server writes its profile as it exits (the client closed its stdin).
  await waitFor(() => readdirSync(profileDir).some((f) => f.endsWith(".cpuprofile")), 10_000);
  const file = readdirSync(profileDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(profileDir, f))
    .sort()
    .at(-1);
  console.log();
  summarizeProfile(file);
}

// --- helpers ----------------------------------------------------------------------------------------------------
function printTable(rowsToPrint) {
  const widths = rowsToPrint[0].map((_, i) => Math.max(...rowsToPrint.map((r) => String(r[i]).length)));
  for (const [i, r] of rowsToPrint.entries()) {
    console.log(
      r.map((cell, j) => (j === 0 ? String(cell).padEnd(widths[j]) : String(cell).padStart(widths[j]))).join("  "),
    );
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

function firstLine(stream) {
  return new Promise((resolveLine, reject) => {
    const lines = createInterface({ input: stream });
    lines.once("line", (line) => {
      lines.close();
      resolveLine(line);
    });
    stream.once("error", reject);
  });
}

async function waitFor(condition, ms) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the server's CPU profile");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Self time by package or area, inclusive time of the call's stages, and the hottest functions of a .cpuprofile. */
function summarizeProfile(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const total = (profile.endTime - profile.startTime) / 1000;
  const interval = total / Math.max(1, profile.samples.length);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const byArea = new Map();
  const byFunction = new Map();
  const inclusive = new Map();
  const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value);
  for (const node of profile.nodes) {
    const self = node.hitCount * interval;
    if (self === 0) continue;
    const { functionName, url } = node.callFrame;
    add(byArea, areaOf(url, functionName), self);
    add(byFunction, frameName(node), self);
    // Each function on the stack once, however often it recurses.
    const onStack = new Set();
    for (let id = node.id; id !== undefined; id = parentOf.get(id)) onStack.add(frameName(byId.get(id)));
    for (const name of onStack) add(inclusive, name, self);
  }
  const busy = total - (byArea.get("(idle)") ?? 0);
  const percent = (time) => `${((time / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(`Our server's CPU profile: ${file}`);
  console.log(`${total.toFixed(0)} ms profiled, ${busy.toFixed(0)} ms busy. Self time by area (% of busy):`);
  for (const [area, time] of [...byArea]
    .filter(([a]) => a !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, 14)) {
    console.log(`  ${percent(time)}  ${area}`);
  }
  console.log("Stages of a call (inclusive time, % of busy):");
  // Inclusive time of the frames matching each pattern: the largest one, or (for separate frames) their sum.
  const stages = [
    ["stdin read + JSON-RPC parse", /^StdioServerTransport\._ondata /, "max"],
    ["SDK request handling (zod, our handler, reply)", /^wrappedHandler .*server\/index\.js/, "max"],
    ["  Engine.callTool", /^callTool dist\/runtime\/engine\.js/, "max"],
    ["    prepare (validate, build request)", /^prepare dist\/runtime\/engine\.js/, "max"],
    ["    send (undici, to the response body)", /^send dist\/runtime\/http\.js/, "max"],
    ["    mapResponse (parse, output validation)", /^mapResponse dist\/runtime\/response\.js/, "max"],
    ["  AbortSignal.any + AbortSignal.timeout", /^(any|timeout) node:internal\/abort_controller/, "sum"],
    ["stdout write (StdioServerTransport.send)", /^send .*server\/stdio\.js/, "max"],
    ["garbage collector", /^\(garbage collector\)/, "max"],
  ];
  for (const [label, pattern, combine] of stages) {
    const times = [...inclusive].filter(([name]) => pattern.test(name)).map(([, t]) => t);
    const time = combine === "sum" ? times.reduce((a, b) => a + b, 0) : Math.max(0, ...times);
    console.log(`  ${percent(time)}  ${label}`);
  }
  console.log("Hottest functions (self time, % of busy):");
  for (const [name, time] of [...byFunction]
    .filter(([n]) => !n.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)) {
    console.log(`  ${percent(time)}  ${name}`);
  }
}

function frameName(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || "(anonymous)"}${url ? ` ${shortUrl(url)}:${lineNumber + 1}` : ""}`;
}

function areaOf(url, functionName) {
  if (!url) return functionName.startsWith("(") ? functionName : "(native: syscalls, JSON, …)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith("node:internal/")) return `node:${url.slice("node:internal/".length).split("/")[0]}`;
  if (url.startsWith("node:")) return url;
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `openapi-mcp ${dist[1].split("/")[0]}`;
  return shortUrl(url);
}

function shortUrl(url) {
  return url
    .replace(/^file:\/\//, "")
    .replace(root, "")
    .replace(/^.*node_modules\//, "");
}
