// Slow request bodies, in one run on one machine: `openapi-mcp serve examples/petstore.openapi.yaml --transport http`
// as a child process; `--connections` clients on loopback each declare a body of `--body` bytes, send all but its
// last byte at once, and hold the connection. Printed: the server's RSS before and once every client has sent (or
// been refused), how each connection ended within the wait, and how long /healthz took meanwhile.
//
// Run: npm run build && node bench/slow-bodies.mjs
// Options: --connections N (100)  --body BYTES (4194304)  --wait SECONDS (5: how long the clients hold)
//          --cli FILE (dist/cli.js: point it at another build to compare)

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    connections: { type: "string", default: "100" },
    body: { type: "string", default: String(4 * 1024 * 1024) },
    wait: { type: "string", default: "5" },
    cli: { type: "string", default: `${root}dist/cli.js` },
  },
});

const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const rss = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

/** One client: headers and all but the last byte of the body, then nothing. Resolves with how it ended. */
function slowClient({ port, size, ends }) {
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk) => (answer ||= chunk.toString("latin1").split("\r\n")[0]));
  socket.on("error", () => {});
  socket.on("close", () => ends.push(answer || "closed"));
  socket.write(
    `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${size}\r\n\r\n`,
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

async function main() {
  printMachine();
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
  const count = Number(options.connections);
  const size = Number(options.body);
  const before = rss(child.pid);
  const ends = [];
  const sockets = Array.from({ length: count }, () => slowClient({ port, size, ends }));
  let peak = before;
  let slowestHealth = 0;
  const deadline = Date.now() + Number(options.wait) * 1000;
  while (Date.now() < deadline) {
    const started = Date.now();
    await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.text());
    slowestHealth = Math.max(slowestHealth, Date.now() - started);
    peak = Math.max(peak, rss(child.pid));
    await new Promise((done) => setTimeout(done, 100));
  }
  for (const socket of sockets) socket.destroy();
  child.kill("SIGTERM");
  const counted = {};
  for (const end of ends) counted[end] = (counted[end] ?? 0) + 1;
  const open = count - ends.length;
  console.log(
    `\n${count} clients, each ${size.toLocaleString("en-US")} bytes of body but the last, held ${options.wait} s, against ${cli.replace(root, "")}:`,
  );
  console.log(
    `  server RSS before ${megabytes(before)}, highest while held ${megabytes(peak)} (+${megabytes(peak - before)})`,
  );
  console.log(
    `  ended by the server: ${
      Object.entries(counted)
        .map(([k, n]) => `${n} × ${k}`)
        .join(", ") || "none"
    }; still open: ${open}`,
  );
  console.log(`  slowest /healthz meanwhile: ${slowestHealth} ms`);
  recordSummary({
    bench: "slow-bodies",
    measure: `${count} slow bodies: RSS added`,
    value: megabytes(peak - before),
    floor: `${megabytes(before)} before`,
    target: "bounded",
  });
}

await main();
