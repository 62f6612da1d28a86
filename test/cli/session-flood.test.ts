// Finding 1 of the attack run: one client looping `initialize` exhausted the heap (about 30 KB a session, never
// expired or capped) and the process died for everyone. Here `serve --transport http` runs with a 96 MB heap, which
// holds the default 1,000 sessions with room to spare but not the ~3,000 this flood would open without the cap
// (the build before the caps died at about 2,900, `JavaScript heap out of memory`); with the cap the process stays up.

import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { CLI, ROOT } from "../support/cli.js";
import { INITIALIZE } from "../server/http-support.js";

const HEAP_MB = 96;
const REQUESTS = 6_000;
const CONCURRENCY = 16;

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

interface Answer {
  status: number;
  retryAfter?: string;
}

function post({ port, agent, body }: { port: number; agent: Agent; body: string }): Promise<Answer | "error"> {
  return new Promise((resolve) => {
    const headers = {
      host: `127.0.0.1:${port}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers, agent }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          ...(res.headers["retry-after"] ? { retryAfter: res.headers["retry-after"] } : {}),
        }),
      );
    });
    req.on("error", () => resolve("error"));
    req.end(body);
  });
}

it(`survives ${REQUESTS.toLocaleString("en-US")} initialize requests in a ${HEAP_MB} MB heap: sessions capped, /healthz answered`, {
  timeout: 60_000,
}, async () => {
  const spawned = spawn(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_MB}`,
      CLI,
      "serve",
      join(ROOT, "examples/petstore.openapi.yaml"),
      "--transport",
      "http",
      "--port",
      "0",
    ],
    {
      env: { ...process.env, API_KEY_API_KEY: "flood-key-0123456789" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  child = spawned;
  let stderr = "";
  let exit: string | undefined;
  spawned.on("exit", (code, signal) => (exit = `exit ${code ?? signal}`));
  const port = await new Promise<number>((resolve, reject) => {
    spawned.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk;
      const found = /127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (found) resolve(Number(found[1]));
    });
    spawned.on("exit", () => reject(new Error(`the server did not start:\n${stderr}`)));
  });

  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses: Record<string, number> = {};
  let sent = 0;
  let last: Answer | "error" | undefined;
  const worker = async (): Promise<void> => {
    while (sent < REQUESTS && exit === undefined) {
      sent++;
      last = await post({ port, agent, body: INITIALIZE });
      const key = last === "error" ? "error" : String(last.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();

  const why = /.*(FATAL ERROR|out of memory).*/.exec(stderr)?.[0] ?? stderr.split("\n").slice(-5).join("\n");
  const died = exit === undefined ? "" : `the server died (${exit}) after ${JSON.stringify(statuses)}: ${why}`;
  expect(died).toBe("");
  expect(statuses).toEqual({ 200: 1_000, 503: REQUESTS - 1_000 });
  expect(last).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: "ok" });
});
