// tools/call latency and throughput over stdio, against the floor of the same HTTP request made directly with
// undici, in one run on one machine. A loopback upstream (bench/call-child.mjs upstream, its own process) answers a
// small JSON object. Each row is a caller (bench/call-clients.mjs) and, for MCP, a server process:
//   direct      an undici keep-alive Agent sending the engine's request: the floor the targets are stated against;
//   ours-*      `openapi-mcp serve bench/fixtures/widgets.openapi.yaml` calling `getWidget` (argument validation,
//               request building, the request, response parsing, output-schema validation, structured content),
//               from the SDK v2 Client speaking 2025-11-25 or 2026-07-28, and from the SDK v1 Client (old hosts);
//   peer        @ivotoby/openapi-mcp-server (a devDependency) serving the same document, from the SDK v1 Client;
//   floor-*     the floor of MCP over stdio: a minimal server of the SDK itself whose tool answers the same result
//               at once, SDK v1 on both ends, or SDK v2 on both ends in either era (bench/call-child.mjs);
//   echo-*      our binding (dist/server) over that instant tool: the SDK v2 floor plus our MCP layer, no HTTP.
// One call at a time (latency p50/p99) and 16 in flight (throughput), alternating the rows in each round so that
// drift in machine load hits all alike; the table shows medians over rounds. CPU time per call of each process
// (from /proc, Linux) shows where the work is.
//
// Run: npm run build && node bench/call.mjs
// Options: --rounds N (3)  --calls N one-at-a-time calls a round (2000)  --load-calls N calls at 16 in flight a
//          round (5000)  --concurrency N (16)  --warmup N (500)  --only ROW,ROW (direct and these rows)
//          --baseline FILE (another build's dist/cli.js as one more row, from the SDK v1 Client)
//          --profile DIR (run ours-2025 and ours-2026 under --cpu-prof into DIR and print where their time goes)

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { directCaller, EXPECTED, mcpCaller } from "./call-clients.mjs";
import { servingProfile, summarizeProfile } from "./call-profile.mjs";
import { report } from "./call-report.mjs";
import { cpuNow, loaded, percentile, sequential } from "./call-measure.mjs";
import { printMachine } from "./report.mjs";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "2000" },
    "load-calls": { type: "string", default: "5000" },
    concurrency: { type: "string", default: "16" },
    warmup: { type: "string", default: "500" },
    only: { type: "string" },
    baseline: { type: "string" },
    profile: { type: "string" },
  },
});
const [ROUNDS, CALLS, LOAD_CALLS, CONCURRENCY, WARMUP] = ["rounds", "calls", "load-calls", "concurrency", "warmup"].map(
  (key) => Number(options[key]),
);

const root = new URL("..", import.meta.url).pathname;
const CLI = `${root}dist/cli.js`;
const CHILD = `${root}bench/call-child.mjs`;
const PEER = `${root}node_modules/@ivotoby/openapi-mcp-server`;
const PEER_VERSION = JSON.parse(readFileSync(`${PEER}/package.json`, "utf8")).version;
if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` first");

const upstream = spawn(process.execPath, [CHILD, "upstream"], { stdio: ["pipe", "pipe", "inherit"] });
const { port } = JSON.parse(await firstLine(upstream.stdout));
const origin = `http://127.0.0.1:${port}`;
const profileDir = options.profile ? resolve(options.profile) : undefined;

const serve = ({ cli = CLI, profile }) => {
  const flags = profile && profileDir ? ["--cpu-prof", "--cpu-prof-dir", join(profileDir, profile)] : [];
  if (profile && profileDir) mkdirSync(join(profileDir, profile), { recursive: true });
  return [...flags, cli, "serve", `${root}bench/fixtures/widgets.openapi.yaml`, "--base-url", `${origin}/v1`];
};
const peer = [`${PEER}/bin/mcp-server.js`, "--transport", "stdio", "--api-base-url", `${origin}/v1`];
peer.push("--openapi-spec", `${root}bench/fixtures/widgets.openapi.yaml`);
const [v1, v2, v2new] = [{ sdk: "v1" }, { sdk: "v2" }, { sdk: "v2", era: "2026" }];
// name, label, the server's arguments (after `node`) and the client.
const ROWS = [
  ["ours-2025", "ours, 2025-11-25, SDK v2 client", serve({ profile: "ours-2025" }), v2],
  ["ours-2026", "ours, 2026-07-28, SDK v2 client", serve({ profile: "ours-2026" }), v2new],
  ["ours-v1", "ours, 2025-11-25, SDK v1 client", serve({}), v1],
  ["peer", `peer ${PEER_VERSION}, SDK v1 client`, peer, { ...v1, tool: "get-widget" }],
  ["floor-v1", "MCP floor, SDK v1 both ends", [CHILD, "floor-v1"], v1],
  ["floor-2025", "MCP floor, SDK v2 both ends, 2025-11-25", [CHILD, "floor-v2"], v2],
  ["floor-2026", "MCP floor, SDK v2 both ends, 2026-07-28", [CHILD, "floor-v2"], v2new],
  ["echo-2025", "our binding, instant tool, 2025-11-25", [CHILD, "echo"], v2],
  ["echo-2026", "our binding, instant tool, 2026-07-28", [CHILD, "echo"], v2new],
];
if (options.baseline) {
  const cli = resolve(options.baseline);
  ROWS.push(["baseline", `ours at ${cli}, SDK v1 client`, serve({ cli }), v1]);
}
const only = options.only?.split(",").concat(options.baseline ? "baseline" : []);
const subjects = [{ name: "direct", label: "direct (undici)", ...directCaller(origin) }];
for (const [name, label, args, client] of ROWS.filter(([name]) => !only || only.includes(name)))
  subjects.push({ name, label, ...(await mcpCaller({ args, ...client })) });

printMachine();
console.log(
  `Upstream: loopback node:http in its own process, a ${JSON.stringify(EXPECTED).length}-byte JSON answer; ` +
    `MCP over stdio, each server its own process${profileDir ? " (ours under --cpu-prof)" : ""}.`,
);
console.log(
  `${ROUNDS} rounds, each: ${CALLS} calls one at a time, ${LOAD_CALLS} calls with ${CONCURRENCY} in flight ` +
    `(after ${WARMUP} warm-up calls of each kind), the rows alternating; medians over rounds.\n`,
);
for (const { call } of subjects) {
  await sequential({ call, count: WARMUP });
  await loaded({ call, count: WARMUP, concurrency: CONCURRENCY });
}

const figures = new Map(subjects.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const row = new Map(subjects.map((s) => [s.name, {}]));
  for (const { name, call } of subjects) {
    const latencies = await sequential({ call, count: CALLS });
    Object.assign(row.get(name), { p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
  }
  for (const { name, call, pid } of subjects) {
    const before = cpuNow({ upstreamPid: upstream.pid, serverPid: pid });
    const { perSecond, latencies } = await loaded({ call, count: LOAD_CALLS, concurrency: CONCURRENCY });
    const after = cpuNow({ upstreamPid: upstream.pid, serverPid: pid });
    const perCall = (key) => ((after[key] - before[key]) / LOAD_CALLS) * 1000;
    Object.assign(row.get(name), {
      perSecond,
      loadP50: percentile(latencies, 50),
      loadP99: percentile(latencies, 99),
      cpu: { client: perCall("client"), server: perCall("server"), upstream: perCall("upstream") },
    });
  }
  for (const { name } of subjects) figures.get(name).push(row.get(name));
  const each = (f) => subjects.map((s) => f(row.get(s.name))).join(" / ");
  process.stderr.write(
    `round ${round + 1}/${ROUNDS}: p50 ${each((r) => r.p50.toFixed(3))} ms, ` +
      `${each((r) => Math.round(r.perSecond))} calls/s (${subjects.map((s) => s.name).join(" / ")})\n`,
  );
}
for (const { close } of subjects) await close();
upstream.stdin.end();

report({ subjects, figures, concurrency: CONCURRENCY });
if (profileDir) {
  for (const { name, pid } of subjects.filter((s) => s.name === "ours-2025" || s.name === "ours-2026")) {
    console.log();
    summarizeProfile(await servingProfile({ dir: join(profileDir, name), pid }));
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
