// Code mode under one caller's flood (wave 3, finding 6): `openapi-mcp serve examples/petstore.openapi.yaml --mode
// code --transport http` as a child process with two static-token callers, each the SDK's Client over streamable
// HTTP. Two runs, each on a fresh server:
//   starve  B runs `return 1` --samples times one after the other, alone; then A sends a spinning script
//           (`for (;;) {}`, stopped at its CPU limit) --rate times a second, and from the flood's third second B
//           sends `return 1` once a second, --samples times: B's p50 quiet and flooded;
//   memory  A sends --count maximum-size executes (100,000 characters, spinning) at once, on raw connections: how
//           many were refused (the queue's bound) and how many accepted once no answer came for 5 s, and the
//           server's RSS before, at its peak (VmHWM, the requests arriving) and then; RSS mostly shows the
//           requests arriving, so the same flood also goes to the engine in this process (sandbox-flood-heap.mjs):
//           the heap it holds after a forced collection, once the refusals have come.
//
// Run: npm run bench:sandbox-flood   (or npm run build && node bench/sandbox-flood.mjs)
// Options: --samples N (10)  --rate N (6)  --count N (1500)  --only starve|memory
//          --cli FILE (dist/cli.js), --dist DIR (dist): another build to compare

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { heldHeap } from "./sandbox-flood-heap.mjs";
import { median, printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    samples: { type: "string", default: "10" },
    rate: { type: "string", default: "6" },
    count: { type: "string", default: "1500" },
    cli: { type: "string", default: `${root}dist/cli.js` },
    dist: { type: "string", default: `${root}dist` },
    only: { type: "string" },
  },
});
const TOKENS = { a: "bench-flood-token-a-0123456789abcdef", b: "bench-flood-token-b-0123456789abcdef" };
const SPIN = "for (;;) {}";
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
/** The longest script execute takes: a spinning loop and a comment up to 100,000 characters. */
const LARGEST = `${SPIN} /*${"x".repeat(100_000 - SPIN.length - 5)}*/`;

const kB = (pid, field) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

async function startServer() {
  const child = spawn(
    process.execPath,
    [resolve(options.cli), "serve", `${root}examples/petstore.openapi.yaml`, "--mode", "code"].concat([
      "--transport",
      "http",
      "--port",
      "0",
      "--auth-token-env",
      "BENCH_FLOOD_TOKENS",
    ]),
    { env: { ...process.env, BENCH_FLOOD_TOKENS: `${TOKENS.a},${TOKENS.b}` }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const url = await new Promise((done, fail) => {
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found) done(found[1]);
    });
    child.on("exit", () => fail(new Error(`the server exited:\n${stderr}`)));
  });
  return { child, url };
}

async function connect(url, token) {
  const client = new Client({ name: "bench-flood", version: "0" });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const execute = (client, code) =>
  client.callTool({ name: "execute", arguments: { code } }, undefined, { timeout: 600_000 });
const textOf = (result) => result.content?.[0]?.text ?? "";

async function returnOne(client) {
  const started = performance.now();
  const result = await execute(client, "return 1;");
  if (result.isError) throw new Error(`return 1 failed: ${textOf(result)}`);
  return performance.now() - started;
}

async function starve() {
  const { child, url } = await startServer();
  const [a, b] = [await connect(url, TOKENS.a), await connect(url, TOKENS.b)];
  for (let i = 0; i < 5; i++) await returnOne(b);
  const quiet = [];
  for (let i = 0; i < Number(options.samples); i++) quiet.push(await returnOne(b));
  // A floods for a fixed time; B asks once a second from its third second on, each answer timed.
  let sent = 0;
  const flood = setInterval(() => {
    sent++;
    execute(a, SPIN).catch(() => undefined);
  }, 1000 / Number(options.rate));
  await new Promise((done) => setTimeout(done, 2000));
  const asked = [];
  for (let i = 0; i < Number(options.samples); i++) {
    asked.push(returnOne(b));
    await new Promise((done) => setTimeout(done, 1000));
  }
  clearInterval(flood);
  const flooded = await Promise.all(asked);
  child.kill();
  const ms = (x) => `${x.toFixed(1)} ms`;
  const [p50q, p50f] = [median(quiet), median(flooded)];
  console.log(
    `starve: B's "return 1" p50 quiet ${ms(p50q)}, under A's flood (${options.rate} spinning scripts/s, ${sent} sent) ${ms(p50f)} (${(p50f / p50q).toFixed(1)}×); slowest flooded ${ms(Math.max(...flooded))}`,
  );
  recordSummary({
    bench: "sandbox-flood",
    measure: `code mode: other caller's "return 1" p50, quiet -> one caller's flood`,
    value: `${ms(p50q)} -> ${ms(p50f)}`,
  });
}

/** One POST to /mcp as A (raw HTTP: the SDK's client is too slow to send 1,500 large requests at once). */
function post({ url, body, headers = {}, agent }) {
  return new Promise((done) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { ...HEADERS, authorization: `Bearer ${TOKENS.a}`, ...headers } },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => done({ headers: res.headers, text: Buffer.concat(chunks).toString() }));
        res.on("error", () => done({ headers: {}, text: "" }));
      },
    );
    req.on("error", () => done({ headers: {}, text: "" }));
    req.end(body);
  });
}

async function memory() {
  const { child, url } = await startServer();
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const init = await post({
    url,
    agent,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-flood", version: "0" } },
    }),
  });
  const session = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18" };
  await post({ url, agent, headers: session, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  const call = (id, code) =>
    Buffer.from(
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "execute", arguments: { code } } }),
    );
  await post({ url, agent, headers: session, body: call(1, "return 1;") });
  const before = kB(child.pid, "VmRSS");
  let refused = 0;
  let answered = 0;
  let firstRefusal = "";
  const count = Number(options.count);
  const body = call(2, LARGEST);
  for (let i = 0; i < count; i++)
    void post({ url, agent, headers: session, body }).then(({ text }) => {
      answered++;
      if (!text.includes("not run")) return;
      refused++;
      firstRefusal ||= /"text":"(.*?)"}]/.exec(text)?.[1] ?? text;
    });
  // Until every request has arrived and been queued or refused: 15 s, then until no new answer for 5 s (at most
  // 60 s); the accepted ones spin in turn meanwhile (2 s each).
  const started = performance.now();
  let last = { answered, at: started };
  const waiting = () => performance.now() - started < 15_000 || performance.now() - last.at < 5_000;
  while (performance.now() - started < 60_000 && waiting()) {
    if (answered !== last.answered) last = { answered, at: performance.now() };
    await new Promise((done) => setTimeout(done, 250));
  }
  const waited = performance.now() - started;
  const [peak, held] = [kB(child.pid, "VmHWM"), kB(child.pid, "VmRSS")];
  child.kill();
  agent.destroy();
  const mb = (k) => `${Math.round(k / 1024)} MB`;
  console.log(
    `memory: ${count} maximum-size executes from one caller: ${refused} refused at once, ${count - refused} accepted (${answered} answered in ${(waited / 1000).toFixed(0)} s); RSS ${mb(before)} -> peak ${mb(peak)} (+${mb(peak - before)}), then ${mb(held)} (+${mb(held - before)})`,
  );
  if (firstRefusal) console.log(`  refusal: ${firstRefusal.slice(0, 400)}`);
  recordSummary({
    bench: "sandbox-flood",
    measure: `code mode: ${count} maximum-size executes from one caller`,
    value: `${count - refused} accepted, RSS +${mb(peak - before)} at peak, +${mb(held - before)} after`,
  });
}

async function heap() {
  const { refused, accepted, heldBytes } = await heldHeap({
    dist: resolve(options.dist),
    count: Number(options.count),
    code: LARGEST,
  });
  const mb = `${(heldBytes / 2 ** 20).toFixed(1)} MiB`;
  console.log(
    `heap: the same in process: ${refused} refused, ${accepted} accepted; heap held after a forced gc +${mb}`,
  );
  recordSummary({
    bench: "sandbox-flood",
    measure: `code mode: ${options.count} maximum-size executes, heap held (engine in process)`,
    value: `${accepted} accepted, +${mb}`,
  });
}

printMachine();
if (options.only !== "memory") await starve();
if (options.only !== "starve") {
  await memory();
  await heap();
}
process.exit(0);
