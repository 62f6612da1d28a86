// Argument validation under attack (wave 2, finding 2): `openapi-mcp serve examples/petstore.openapi.yaml
// --transport http` as a child process, sent `createPet` calls whose `tags` holds 2 million integers (3.8 MiB;
// tags are strings), while a healthy client polls `/healthz` every 20 ms. Three runs, each on a fresh server:
//   single    one such call;
//   parallel  `--parallel` (8) at once;
//   unread    `--unread` (20) sent on raw sockets whose replies are never read.
// Each reports the server's CPU time (user + system, from /proc), its RSS before and peak RSS (VmHWM), its RSS
// while the unread replies are held, the size of one reply, the reply's first words and the worst `/healthz` wait.
//
// Run: npm run bench:attacks (or npm run build && node bench/attacks.mjs)
// Options: --count N (2000000 integers)  --parallel N (8)  --unread N (20)
//          --cli FILE (dist/cli.js: point it at another build to compare)  --only single|parallel|unread

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { Agent, request } from "node:http";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    count: { type: "string", default: "2000000" },
    parallel: { type: "string", default: "8" },
    unread: { type: "string", default: "20" },
    cli: { type: "string", default: `${root}dist/cli.js` },
    only: { type: "string" },
  },
});

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

function procStatus(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

/** Seconds of CPU (user + system) the process has used. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function startServer() {
  const child = spawn(
    process.execPath,
    [resolve(options.cli), "serve", `${root}examples/petstore.openapi.yaml`, "--transport", "http", "--port", "0"],
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
  return { child, port };
}

/** One POST to /mcp: status, headers and the whole body as text. */
function post({ port, body, headers = {} }) {
  return new Promise((done, fail) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { ...HEADERS, ...headers } },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => done({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

async function openSession(port) {
  const init = await post({
    port,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
    }),
  });
  const session = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18" };
  await post({ port, headers: session, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  return session;
}

/** The hostile call: `"tags":[0,0,…]`, two bytes an integer. */
function attackBody(id) {
  const tags = `[${"0,".repeat(Number(options.count) - 1)}0]`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"createPet","arguments":{"body":{"name":"Rex","kind":{"species":"dog"},"tags":${tags}}}}}`;
}

/** A healthy client: GET /healthz every 20 ms until stopped; the worst wait it saw. */
function pollHealth(port) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let worst = 0;
  let stopped = false;
  const once = () =>
    new Promise((done) => {
      const started = performance.now();
      const req = request({ host: "127.0.0.1", port, path: "/healthz", agent }, (res) => {
        res.resume();
        res.on("end", () => done(performance.now() - started));
      });
      req.on("error", () => done(performance.now() - started));
      req.end();
    });
  const loop = (async () => {
    while (!stopped) {
      worst = Math.max(worst, await once());
      await new Promise((done) => setTimeout(done, 20));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    agent.destroy();
    return worst;
  };
}

/** Waits until the server has used no CPU for a second (it is done with what it was sent), at most `seconds`. */
async function settle(pid, seconds = 300) {
  let last = cpuSeconds(pid);
  for (let waited = 0; waited < seconds; waited += 1) {
    await new Promise((done) => setTimeout(done, 1_000));
    const now = cpuSeconds(pid);
    if (now - last < 0.02) return;
    last = now;
  }
}

const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0)} MB`;
const size = (bytes) => (bytes < 2 ** 20 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`);

async function run(kind) {
  const { child, port } = await startServer();
  const pid = child.pid;
  const session = await openSession(port);
  const body = attackBody(2);
  const before = { rss: procStatus(pid, "VmRSS"), cpu: cpuSeconds(pid) };
  const stopPolling = pollHealth(port);
  const started = performance.now();
  let reply;
  let held;
  if (kind === "single") reply = await post({ port, headers: session, body });
  else if (kind === "parallel")
    reply = (
      await Promise.all(Array.from({ length: Number(options.parallel) }, () => post({ port, headers: session, body })))
    )[0];
  else {
    // Raw sockets that send the call and never read a byte of the reply.
    const head = Object.entries({
      host: `127.0.0.1:${port}`,
      ...HEADERS,
      ...session,
      "content-length": Buffer.byteLength(body),
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    const sockets = Array.from({ length: Number(options.unread) }, () => {
      const socket = connect(port, "127.0.0.1");
      socket.pause();
      socket.on("error", () => {});
      socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n`);
      socket.write(body);
      return socket;
    });
    await settle(pid);
    held = procStatus(pid, "VmRSS");
    for (const socket of sockets) socket.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const worst = await stopPolling();
  const cpu = cpuSeconds(pid) - before.cpu;
  const peak = procStatus(pid, "VmHWM");
  child.kill("SIGTERM");
  const calls = kind === "single" ? 1 : kind === "parallel" ? Number(options.parallel) : Number(options.unread);
  console.log(
    `\n${kind}: ${calls} × createPet with ${Number(options.count).toLocaleString("en-US")} integers in tags (${size(Buffer.byteLength(body))} each), ${seconds.toFixed(1)} s`,
  );
  console.log(
    `  server CPU ${cpu.toFixed(2)} s; RSS before ${megabytes(before.rss)}, peak ${megabytes(peak)}${held !== undefined ? `, ${megabytes(held)} while the replies are unread` : ""}`,
  );
  if (reply) {
    const text = reply.body.toString("utf8");
    const message = /"text":"((?:[^"\\]|\\.){0,160})/.exec(text)?.[1] ?? text.slice(0, 160);
    console.log(`  reply ${reply.status}, ${size(reply.body.length)}: ${message}…`);
  }
  console.log(`  worst /healthz wait meanwhile: ${worst.toFixed(0)} ms`);
  recordSummary({
    bench: "attacks",
    measure: `${kind}: ${calls} × 2M-integer createPet`,
    value: `CPU ${cpu.toFixed(2)} s, peak ${megabytes(peak)}`,
    floor: `healthz ${worst.toFixed(0)} ms`,
    target: "bounded",
  });
}

printMachine();
console.log(`\nserver: ${resolve(options.cli).replace(root, "")}`);
for (const kind of ["single", "parallel", "unread"]) if (!options.only || options.only === kind) await run(kind);
