// Where our server's time goes, from the .cpuprofile `node --cpu-prof` writes as it exits (bench/call.mjs
// --profile DIR): self time by package or area, inclusive time of the call's stages, the hottest functions.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** The profile the server `pid` writes in `dir` as it exits (a 2026-07-28 client's probe process writes one too). */
export async function servingProfile({ dir, pid }) {
  const deadline = Date.now() + 10_000;
  const find = () => readdirSync(dir).find((f) => f.endsWith(".cpuprofile") && f.includes(`.${pid}.`));
  while (!find()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for the CPU profile of process ${pid}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return join(dir, find());
}

// Inclusive time of the frames matching each pattern: the largest one, or (for separate frames) their sum.
const STAGES = [
  ["stdin read + JSON-RPC parse", /^_ondata .*server\/dist\/stdio\.mjs/, "max"],
  ["SDK request dispatch (its synchronous part)", /^_onrequest .*server\/dist\/src-/, "max"],
  ["  Engine.callTool", /^callTool dist\/runtime\/engine\.js/, "max"],
  ["    prepare (validate, build request)", /^prepare dist\/runtime\/engine\.js/, "max"],
  ["    send (undici, to the response body)", /^send dist\/runtime\/http\.js/, "max"],
  ["    mapResponse (parse, output validation)", /^mapResponse dist\/runtime\/response\.js/, "max"],
  ["  abort signals made (the SDK's, ours, the request's)", /^get signal node:internal\/abort_controller/, "sum"],
  ["stdout write (our ListingTransport.send)", /^send dist\/server\/stdio-session\.js/, "max"],
  ["promise hooks (AsyncLocalStorage)", /^promise\w*Hook node:internal\/async_hooks/, "sum"],
  ["garbage collector", /^\(garbage collector\)/, "max"],
];

export function summarizeProfile(file) {
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
  const top = (map, count) =>
    [...map]
      .filter(([name]) => !name.startsWith("(idle)"))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count);
  console.log(`Our server's CPU profile: ${file}`);
  console.log(`${total.toFixed(0)} ms profiled, ${busy.toFixed(0)} ms busy. Self time by area (% of busy):`);
  for (const [area, time] of top(byArea, 14)) console.log(`  ${percent(time)}  ${area}`);
  console.log("Stages of a call (inclusive time, % of busy):");
  for (const [label, pattern, combine] of STAGES) {
    const times = [...inclusive].filter(([name]) => pattern.test(name)).map(([, t]) => t);
    const time = combine === "sum" ? times.reduce((a, b) => a + b, 0) : Math.max(0, ...times);
    console.log(`  ${percent(time)}  ${label}`);
  }
  console.log("Hottest functions (self time, % of busy):");
  for (const [name, time] of top(byFunction, 20)) console.log(`  ${percent(time)}  ${name}`);
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
