// A real Redis server for the tests: Debian's `redis-server` on a free loopback port, no persistence (or, when
// durable, an append-only file synced at every write, as production runs it), started and stopped by the test (and
// restartable on the same port, to test an outage). Missing redis-server is a failure with
// what to install, never a skip: CI installs it (.ci/run).

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BINARY = "redis-server";

export class RedisServer {
  private process: ChildProcess | undefined;

  /** Durable: its data directory (append-only file, fsync always), so a restart keeps every acknowledged write. */
  private constructor(
    readonly port: number,
    private readonly dir?: string,
  ) {}

  /** `redis://127.0.0.1:<port>`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start({ durable = false }: { durable?: boolean } = {}): Promise<RedisServer> {
    try {
      execFileSync(BINARY, ["--version"], { stdio: "ignore" });
    } catch {
      throw new Error(
        "redis-server is not installed: the shared-state tests need a real Redis. Install it (Debian/Ubuntu: `sudo apt-get install redis-server`; .ci/run does this).",
      );
    }
    const dir = durable ? mkdtempSync(join(tmpdir(), "redis-")) : undefined;
    const server = new RedisServer(await freePort(), dir);
    await server.resume();
    return server;
  }

  /** Starts (again) on the same port, and waits until it answers PING. */
  async resume(): Promise<void> {
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", ""];
    args.push(
      ...(this.dir ? ["--dir", this.dir, "--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]),
    );
    const child = spawn(BINARY, args, { stdio: ["ignore", "ignore", "pipe"] });
    this.process = child;
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const deadline = Date.now() + 10_000;
    while (!(await pings(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server did not start on port ${this.port}: ${stderr || `exit ${child.exitCode}`}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Freezes the server (SIGSTOP): connections stay open, nothing answers, as with a hung host or lost network. */
  freeze(): void {
    this.process?.kill("SIGSTOP");
  }

  thaw(): void {
    this.process?.kill("SIGCONT");
  }

  /** Stops the server (SIGKILL: an abrupt outage) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    child.kill("SIGCONT");
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when a Redis answers PING on `port` (inline command, RESP reply). */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}
