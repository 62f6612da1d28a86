// bench/replicas (throughput): calls per second through a round-robin balancer to 1 or to 3 replicas of
// `serve --transport http --state redis://…`, the same client load each time (50 stateless 2026-07-28 SDK v2 clients,
// one call in flight each, a GET tool with a rate limit high enough to admit all, so each call is one Redis acquire),
// and the CPU each part spent per call: the replicas, Redis, and this process (the clients, the balancer, the
// upstream). On a 2-core machine those add up to the ceiling: calls/s ≤ 2,000 ms / (CPU ms per call, all parts).

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, request, Agent } from "node:http";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const CLI = new URL("../dist/cli.js", import.meta.url).pathname;
const TICK_MS = 10; // /proc/<pid>/stat counts CPU in clock ticks of 1/100 s (CLK_TCK on Linux)

/** CPU ms a process has used (user + system), from /proc. */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const listen = (server) =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`)));

/** A loopback upstream answering every request with a small JSON object, and the spec of one tool against it. */
export async function upstreamAndSpec(dir) {
  const upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"items":[]}'));
  });
  const url = await listen(upstream);
  const spec = join(dir, "throughput.openapi.json");
  const limit = { requests: 1_000_000, windowSeconds: 1 };
  const get = { operationId: "listItems", "x-rate-limit": limit, responses: { 200: { description: "ok" } } };
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "T", version: "1" },
      servers: [{ url }],
      paths: { "/items": { get } },
    }),
  );
  return { spec, close: () => new Promise((resolve) => upstream.close(resolve)) };
}

/** `count` replicas serving `spec` with their limits in Redis at `redisUrl`; their origins and pids. */
async function startReplicas({ spec, redisUrl, count }) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(
        process.execPath,
        [CLI, "serve", spec, "--transport", "http", "--port", "0", "--state", redisUrl],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      let log = "";
      const origin = await new Promise((resolve, reject) => {
        child.stderr.on("data", (chunk) => {
          log += chunk;
          const found = /serving \d+ tools? at (http:\/\/\S+)\/mcp/.exec(log);
          if (found) resolve(found[1]);
        });
        child.on("exit", () => reject(new Error(`replica exited: ${log}`)));
      });
      return { origin, pid: child.pid, stop: () => child.kill() };
    }),
  );
}

/**
 * Round robin over `origins`, keep-alive both ways (what test/support/round-robin-proxy.ts does, without the rest).
 * A request that finds its reused connection just closed by the replica's keep-alive timeout is sent again, up to
 * three times (as Node's documentation advises; this bench's tool is a GET, so resending is harmless; on a loaded
 * machine the next pooled connection may have been closed too).
 */
async function balancer(origins) {
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  const send = (req, body, res, tries) => {
    const origin = new URL(origins[next++ % origins.length]);
    const headers = { ...req.headers, host: origin.host };
    const options = { host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers, agent };
    const onward = request(options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    onward.on("error", (error) => {
      if (onward.reusedSocket && error.code === "ECONNRESET" && tries < 3) return send(req, body, res, tries + 1);
      console.error(`balancer: ${error.message}`);
      res.writeHead(502).end();
    });
    onward.end(body);
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => send(req, Buffer.concat(chunks), res, 0));
  });
  const url = await listen(server);
  const close = () => {
    server.closeAllConnections();
    agent.destroy();
    return new Promise((resolve) => server.close(resolve));
  };
  return { url, close };
}

/** One round: calls/s and CPU ms per call of each part, after a warm-up. */
export async function throughput({ spec, redisUrl, redisPid, replicas: count, clients = 50, calls = 5_000 }) {
  const replicas = await startReplicas({ spec, redisUrl, count });
  const front = await balancer(replicas.map((r) => r.origin));
  const connected = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new Client(
        { name: "bench", version: "0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${front.url}/mcp`)));
      return client;
    }),
  );
  const run = async (total) => {
    let left = total;
    await Promise.all(
      connected.map(async (client) => {
        while (left-- > 0) {
          const result = await client.callTool({ name: "listItems", arguments: {} });
          if (result.isError) throw new Error(`call failed: ${JSON.stringify(result.content)}`);
        }
      }),
    );
  };
  // Each replica warmed up alike (its JIT, its connections), whatever their number.
  await run(1_000 * count);
  const before = { self: process.cpuUsage(), replicas: replicas.map((r) => cpuMs(r.pid)), redis: cpuMs(redisPid) };
  const start = performance.now();
  await run(calls);
  const seconds = (performance.now() - start) / 1000;
  const self = process.cpuUsage(before.self);
  const perCall = (ms) => ms / calls;
  const result = {
    perSecond: calls / seconds,
    cpuPerCall: {
      replicas: perCall(replicas.reduce((sum, r, i) => sum + cpuMs(r.pid) - before.replicas[i], 0)),
      redis: perCall(cpuMs(redisPid) - before.redis),
      clients: perCall((self.user + self.system) / 1000),
    },
  };
  await Promise.all(connected.map((client) => client.close()));
  await front.close();
  for (const replica of replicas) replica.stop();
  return result;
}
