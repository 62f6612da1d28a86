// What anyone who reaches a `--console` server can send without logging in, and what it may cost (findings 4, 7 and
// 10 of the second attack run), against a real `serve --transport http --console`:
//  - unique missing asset paths keep nothing: a 32 MB heap stands 1,500 of them with 16,000-character names (the
//    build that cached every path died at ~850), and every real asset still loads;
//  - console bodies are read within the server's bounds: a login body over 16 KiB is refused before it is read;
//    stalled login bodies count against --max-pending-body-bytes, all together and per sending address, and a
//    logged-in admin's API bodies as that admin's share (each held in full before: up to 1 MiB each, no budget);
//  - failed logins are refusals in the log: the first 10 a minute one by one, the rest counted in one line.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT } from "../support/cli.js";
import { ADMIN_TOKEN, type ConsoleServer, startConsoleServer } from "../support/console.js";
import { type Peer, peerFrom } from "../server/slow-peer.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const LOGIN_LIMIT = 16 * 1024;
const MISSES = 1_500;

const servers: ConsoleServer[] = [];
const peers: Peer[] = [];
afterEach(() => {
  for (const p of peers.splice(0)) p.socket.destroy();
});
afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function start(args: string[], env: Record<string, string> = {}): Promise<ConsoleServer> {
  const server = await startConsoleServer({ sources: [PETSTORE], args, env });
  servers.push(server);
  return server;
}

const portOf = (server: ConsoleServer): number => Number(new URL(server.origin).port);

function get({ port, path, agent }: { port: number; path: string; agent: Agent }): Promise<number | "error"> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve("error"));
    req.end();
  });
}

/** A raw POST from `from`: its head and the first `send` bytes of a body declared `size` bytes, then nothing. */
async function stalled({
  server,
  path,
  size,
  send,
  from = "127.0.0.1",
  headers = {},
}: {
  server: ConsoleServer;
  path: string;
  size: number;
  send: number;
  from?: string;
  headers?: Record<string, string>;
}): Promise<Peer> {
  const port = portOf(server);
  const connected = await peerFrom({ port, localAddress: from });
  peers.push(connected);
  const head = Object.entries({
    host: `127.0.0.1:${port}`,
    origin: server.origin,
    "content-type": "application/json",
    "content-length": String(size),
    ...headers,
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  const body = `{"token":"${"x".repeat(size)}`.slice(0, send);
  connected.socket.write(`POST ${path} HTTP/1.1\r\n${head.join("")}\r\n${body}`);
  return connected;
}

/**
 * The status line each peer got, or "held" for one still waiting for the rest of its body: once `refused` of them
 * have answered (within 10 s, however slow the machine), and half a second more for any other.
 */
async function outcomes({ peers: list, refused }: { peers: Peer[]; refused: number }): Promise<string[]> {
  const answered = () => list.filter((p) => p.received().includes("\r\n")).length;
  await vi.waitFor(() => expect(answered()).toBeGreaterThanOrEqual(refused), { timeout: 10_000, interval: 20 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  return list.map((p) => (p.received().includes("\r\n") ? p.received().split("\r\n")[0]! : "held"));
}

describe("asset misses (finding 4)", () => {
  it("keeps nothing for a miss: 1,500 unique missing assets leave a 32 MB heap standing, every real asset loads", {
    timeout: 120_000,
  }, async () => {
    const server = await start([], { NODE_OPTIONS: "--max-old-space-size=32" });
    const port = portOf(server);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const statuses: Record<string, number> = {};
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (sent < MISSES) {
        // 16,000 characters: near Node's 16 KiB of headers, the most a miss could once make the cache keep.
        const name = `${String(sent++).padStart(6, "0")}${"a".repeat(16_000)}.js`;
        const status = await get({ port, path: `/console/assets/${name}`, agent });
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const died = /.*(FATAL ERROR|out of memory).*/.exec(server.stderr())?.[0];
    expect(died).toBeUndefined();
    expect(statuses).toEqual({ 404: MISSES });
    const files = readdirSync(join(ROOT, "src/console/ui")).map((name) => `/console/assets/${name}`);
    const vendor = ["preact.mjs", "hooks.mjs", "htm.mjs"].map((name) => `/console/vendor/${name}`);
    expect(files.length).toBeGreaterThan(5);
    for (const path of [...files, ...vendor]) expect(await get({ port, path, agent }), path).toBe(200);
    // Paths near a real one are no files: nothing outside the list is read.
    for (const path of ["/console/assets/App.js", "/console/assets/../ui/app.js", "/console/vendor/preact.js"])
      expect(await get({ port, path, agent }), path).toBe(404);
    agent.destroy();
  });
});

describe("console bodies within the server's budget (finding 7)", () => {
  let server: ConsoleServer;
  beforeAll(async () => {
    server = await start(["--max-pending-body-bytes", "100000", "--max-pending-body-bytes-per-principal", "40000"]);
  }, 60_000);

  it("refuses a login body over 16 KiB before reading it: 413, connection closed", async () => {
    const big = await stalled({ server, path: "/console/api/login", size: LOGIN_LIMIT + 1, send: 100 });
    expect(await big.answered()).toBe("HTTP/1.1 413 Payload Too Large");
    await big.closed();
    expect(big.received()).toMatch(/must not exceed 16384 bytes/);
    // A login just within it is read and answered.
    const token = JSON.stringify({ token: "y".repeat(LOGIN_LIMIT - 20) });
    const within = await fetch(`${server.origin}/console/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.origin },
      body: token,
    });
    expect(within.status).toBe(401);
  });

  it("counts a logged-in admin's stalled API bodies as that admin's share", async () => {
    const login = await fetch(`${server.origin}/console/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.origin },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const { csrf } = (await login.json()) as { csrf: string };
    const headers = { cookie, "x-console-csrf": csrf };
    const posts = [];
    for (const from of ["127.0.0.1", "127.0.0.2"])
      posts.push(await stalled({ server, path: "/console/api/try", size: 30_000, send: 25_000, from, headers }));
    const ends = await outcomes({ peers: posts, refused: 1 });
    expect(ends.sort()).toEqual(["HTTP/1.1 503 Service Unavailable", "held"]);
    const refused = posts.find((p) => p.received().startsWith("HTTP/1.1 503"))!;
    expect(refused.received()).toMatch(/40000 bytes of request bodies arriving for one caller/);
    expect(refused.received()).toMatch(/\r\nretry-after: \d+\r\n/i);
  });

  it("counts stalled login bodies against the budget: per sending address, then all callers together", async () => {
    const same = [];
    for (let i = 0; i < 3; i++)
      same.push(await stalled({ server, path: "/console/api/login", size: 16_000, send: 15_000 }));
    expect((await outcomes({ peers: same, refused: 1 })).sort()).toEqual([
      "HTTP/1.1 503 Service Unavailable",
      "held",
      "held",
    ]);
    expect(same.find((p) => p.received().startsWith("HTTP/1.1 503"))!.received()).toMatch(/for one caller/);

    // 30,000 bytes held from 127.0.0.1; six other addresses with 15,000 each pass the 100,000 of all together.
    const others = [];
    for (let i = 2; i <= 7; i++)
      others.push(
        await stalled({ server, path: "/console/api/login", size: 16_000, send: 15_000, from: `127.0.0.${i}` }),
      );
    const ends = await outcomes({ peers: others, refused: 2 });
    expect(ends.filter((end) => end === "held").length).toBeLessThanOrEqual(4);
    expect(ends.every((end) => end === "held" || end === "HTTP/1.1 503 Service Unavailable")).toBe(true);
    expect(others.find((p) => p.received().startsWith("HTTP/1.1 503"))!.received()).toMatch(
      /100000 bytes of request bodies arriving, all callers together/,
    );
    expect(server.stderr()).toMatch(/refused: 503 a request body past 100000 bytes .*all callers together/);
  });
});

describe("failed logins in the log (finding 10)", () => {
  it("logs the first 10 failed logins a minute one by one, then counts the rest in one line", {
    timeout: 60_000,
  }, async () => {
    const server = await start(["--request-timeout", "1"]);
    for (let i = 0; i < 15; i++) {
      const response = await fetch(`${server.origin}/console/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.origin },
        body: JSON.stringify({ token: `wrong-token-${i}` }),
      });
      expect(response.status).toBe(401);
    }
    // A login body that stalls is ended by the server's request timeout, as any request is.
    const slow = await stalled({ server, path: "/console/api/login", size: 1_000, send: 500 });
    expect(await slow.answered(4_000)).toBe("HTTP/1.1 408 Request Timeout");
    await server.stop();
    const lines = server.stderr().split("\n");
    expect(lines.filter((line) => /refused a login|a console login/.test(line))).toHaveLength(10);
    expect(lines.filter((line) => line.startsWith("refused: 401 a console login"))).toHaveLength(10);
    // The summary is written at shutdown (or when the minute ends): nothing counted is lost.
    expect(server.stderr()).toMatch(/refused: … 6 more refused in the last \d+ s \(401 × 5, 408 × 1\)/);
  });
});
