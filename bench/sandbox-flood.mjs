// Code mode under one caller's flood (wave 3, finding 6): `openapi-mcp serve examples/petstore.openapi.yaml --mode
// code --transport http` as a child process with two static-token callers, each the SDK's Client over streamable
// HTTP. Two runs, each on a fresh server:
//   starve  B runs `return 1` --samples times one after the other, alone; then A sends a spinning script
//           (`for (;;) {}`, stopped at its CPU limit) --rate times a second, and from the flood's third second B
//           sends `return 1` once a second, --samples times: B's p50 quiet and flooded;
//   memory  A sends --count maximum-size executes (100,000 characters, spinning) at once: how many were refused at
//           once (the queue's bound) and how many accepted, and the server's RSS before and at its peak (VmHWM).
//
// Run: npm run bench:sandbox-flood   (or npm run build && node bench/sandbox-flood.mjs)
// Options: --samples N (10)  --rate N (6)  --count N (1500)  --cli FILE (dist/cli.js: another build to compare)
//          --only starve|memory

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { median, printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    samples: { type: "string", default: "10" },
    rate: { type: "string", default: "6" },
    count: { type: "string", default: "1500" },
    cli: { type: "string", default: `${root}dist/cli.js` },
    only: { type: "string" },
  },
});
const TOKENS = { a: "bench-flood-token-a-0123456789abcdef", b: "bench-flood-token-b-0123456789abcdef" };
const SPIN = "for (;;) {}";
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

async function memory() {
  const { child, url } = await startServer();
  const a = await connect(url, TOKENS.a);
  await execute(a, "return 1;");
  const before = kB(child.pid, "VmRSS");
  let refused = 0;
  let answered = 0;
  let firstRefusal = "";
  const count = Number(options.count);
  for (let i = 0; i < count; i++)
    execute(a, LARGEST).then(
      (result) => {
        answered++;
        if (/not run|try again later/i.test(textOf(result))) {
          refused++;
          firstRefusal ||= textOf(result);
        }
      },
      () => answered++,
    );
  // Long enough for every request to arrive and be queued or refused; the queued ones spin in turn meanwhile.
  await new Promise((done) => setTimeout(done, 10_000));
  const peak = kB(child.pid, "VmHWM");
  child.kill();
  const mb = (k) => `${Math.round(k / 1024)} MB`;
  console.log(
    `memory: ${count} maximum-size executes from one caller: ${refused} refused at once, ${count - refused} accepted (${answered} answered within 10 s); RSS ${mb(before)} -> peak ${mb(peak)} (+${mb(peak - before)})`,
  );
  if (firstRefusal) console.log(`  refusal: ${firstRefusal.slice(0, 400)}`);
  recordSummary({
    bench: "sandbox-flood",
    measure: `code mode: ${count} maximum-size executes from one caller`,
    value: `${count - refused} accepted, +${mb(peak - before)} RSS`,
  });
}

printMachine();
if (options.only !== "memory") await starve();
if (options.only !== "starve") await memory();
process.exit(0);
