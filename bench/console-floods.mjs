// Floods at the console, which anyone who reaches a `--console` server can send without logging in, in one run on one
// machine: `openapi-mcp serve examples/petstore.openapi.yaml --transport http --console` as a child process, then
//   misses   `--misses` GETs of unique missing `/console/assets/<name>.js` paths (names of `--name` characters,
//            keep-alive, 16 at a time): the server's RSS before and after, whether it is still up (run it with
//            `--heap MB` to give it a small heap, as the attack run did), and whether every real asset still loads;
//   logins   `--logins` connections each POSTing to `/console/api/login` a body declared `--body` bytes, all but the
//            last byte sent, held `--wait` seconds: RSS before and the highest while held, and how each ended.
//
// Run: npm run build && node bench/console-floods.mjs
// Options: --misses N (20000)  --name CHARS (16000)  --logins N (1000)  --body BYTES (1048576)  --wait SECONDS (5)
//          --heap MB (the server's --max-old-space-size; default Node's)  --only misses|logins
//          --cli FILE (dist/cli.js: point it at another build to compare)

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    misses: { type: "string", default: "20000" },
    name: { type: "string", default: "16000" },
    logins: { type: "string", default: "1000" },
    body: { type: "string", default: String(1024 * 1024) },
    wait: { type: "string", default: "5" },
    heap: { type: "string" },
    only: { type: "string" },
    cli: { type: "string", default: `${root}dist/cli.js` },
  },
});

const TOKEN = "bench-console-token-0123456789abcdef";
const ASSETS = ["/console/", "/console/assets/app.js", "/console/assets/console.css", "/console/vendor/preact.mjs"];
const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const rss = (pid) => {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};

async function startServer() {
  const cli = resolve(options.cli);
  const heap = options.heap ? [`--max-old-space-size=${options.heap}`] : [];
  const args = [...heap, cli, "serve", `${root}examples/petstore.openapi.yaml`, "--transport", "http", "--port", "0"];
  const child = spawn(process.execPath, [...args, "--console", "--console-token-env", "CONSOLE_TOKEN"], {
    env: { ...process.env, API_KEY_API_KEY: "bench-key-0123456789", CONSOLE_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  let exit;
  child.on("exit", (code, signal) => (exit = `exit ${code ?? signal}`));
  const port = await new Promise((done, fail) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const found = /at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (found) done(Number(found[1]));
    });
    child.on("exit", () => fail(new Error(`the server exited:\n${stderr}`)));
  });
  const died = () =>
    exit && `${exit}: ${/.*(FATAL ERROR|out of memory).*/.exec(stderr)?.[0] ?? stderr.split("\n").slice(-3).join(" ")}`;
  return { child, port, cli: cli.replace(root, ""), died, stop: () => child.kill("SIGKILL") };
}

function get({ port, path, agent }) {
  return new Promise((done) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode));
    });
    req.on("error", () => done("error"));
    req.end();
  });
}

async function misses() {
  const server = await startServer();
  const { port, child } = server;
  const count = Number(options.misses);
  const before = rss(child.pid);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const statuses = {};
  let sent = 0;
  const started = Date.now();
  const worker = async () => {
    while (sent < count && !server.died()) {
      const name = `${String(sent++).padStart(8, "0")}${"a".repeat(Number(options.name))}`;
      const status = await get({ port, path: `/console/assets/${name}.js`, agent });
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const after = rss(child.pid);
  const real = server.died() ? [] : await Promise.all(ASSETS.map((path) => get({ port, path, agent })));
  agent.destroy();
  server.stop();
  const heap = options.heap ? `, ${options.heap} MB heap` : "";
  console.log(
    `\n${sent.toLocaleString("en-US")} unique missing assets (names of ${options.name} characters${heap}), ${seconds} s, against ${server.cli}:`,
  );
  console.log(
    `  answers: ${Object.entries(statuses)
      .map(([k, n]) => `${n} × ${k}`)
      .join(", ")}`,
  );
  console.log(`  server RSS before ${megabytes(before)}, after ${server.died() ? "(gone)" : megabytes(after)}`);
  console.log(`  ${server.died() ? `the server died: ${server.died()}` : `still up; real assets: ${real.join(", ")}`}`);
  recordSummary({
    bench: "console-floods",
    measure: `${count} unique asset misses: RSS after`,
    value: server.died() ? "died" : megabytes(after),
    floor: `${megabytes(before)} before`,
    target: "flat",
  });
}

/** One client: a login POST's head and all of its body but the last byte, then nothing. */
function stalledLogin({ port, size, ends }) {
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk) => (answer ||= chunk.toString("latin1").split("\r\n")[0]));
  socket.on("error", () => {});
  socket.on("close", () => ends.push(answer || "closed"));
  const origin = `http://127.0.0.1:${port}`;
  socket.write(
    `POST /console/api/login HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\norigin: ${origin}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
  );
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < size - 1 && !socket.destroyed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, size - 1 - sent));
      sent += piece.length;
      if (!socket.write(piece)) return void socket.once("drain", pump);
    }
  };
  pump();
  return socket;
}

async function logins() {
  const server = await startServer();
  const { port, child } = server;
  const count = Number(options.logins);
  const size = Number(options.body);
  const before = rss(child.pid);
  const ends = [];
  const sockets = Array.from({ length: count }, () => stalledLogin({ port, size, ends }));
  let peak = before;
  const deadline = Date.now() + Number(options.wait) * 1000;
  while (Date.now() < deadline && !server.died()) {
    peak = Math.max(peak, rss(child.pid));
    await new Promise((done) => setTimeout(done, 100));
  }
  for (const socket of sockets) socket.destroy();
  server.stop();
  const counted = {};
  for (const end of ends) counted[end] = (counted[end] ?? 0) + 1;
  console.log(
    `\n${count} login bodies of ${size.toLocaleString("en-US")} bytes but the last, held ${options.wait} s, against ${server.cli}:`,
  );
  console.log(
    `  server RSS before ${megabytes(before)}, highest while held ${megabytes(peak)} (+${megabytes(peak - before)})`,
  );
  const endings =
    Object.entries(counted)
      .map(([k, n]) => `${n} × ${k}`)
      .join(", ") || "none";
  console.log(`  ended by the server: ${endings}; still open: ${count - ends.length}`);
  if (server.died()) console.log(`  the server died: ${server.died()}`);
  recordSummary({
    bench: "console-floods",
    measure: `${count} stalled login bodies: RSS added`,
    value: megabytes(peak - before),
    floor: `${megabytes(before)} before`,
    target: "bounded",
  });
}

printMachine();
if (options.only !== "logins") await misses();
if (options.only !== "misses") await logins();
