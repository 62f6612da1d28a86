// `serve --transport http` and `npm start` (scripts/start.mjs) where the process cannot serve as asked: a taken
// port, an address beyond loopback without endpoint auth. A user error: one line, exit 1, never a stack trace, and
// `npm start` shows no URL nothing answers at.

import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli, STACK_LINE } from "../support/cli.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const ENV = { API_KEY_API_KEY: "demo-key" };

let blocker: Server;
let taken: number;
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  taken = (blocker.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

/** `node scripts/start.mjs` until it exits, or until `until` matches its output (then it is stopped). */
function npmStart({
  env,
  until,
}: {
  env: Record<string, string>;
  until?: RegExp;
}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "scripts/start.mjs")], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`npm start did not finish:\n${stdout}\n${stderr}`));
    }, 20_000);
    const check = (): void => {
      if (until?.test(stdout)) child.kill("SIGTERM");
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      check();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("serve --transport http", () => {
  it("on a taken port: exit 1 and one line saying how to choose another", async () => {
    const { code, stderr } = await runCli(["serve", PETSTORE, "--transport", "http", "--port", String(taken)], {
      env: ENV,
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`openapi-mcp: port ${taken} is in use; set PORT or --port`);
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("takes its port from PORT, and checks it like --port", async () => {
    expect(
      (await runCli(["serve", PETSTORE, "--transport", "http"], { env: { ...ENV, PORT: String(taken) } })).stderr,
    ).toContain(`port ${taken} is in use`);
    const bad = await runCli(["serve", PETSTORE, "--transport", "http"], { env: { ...ENV, PORT: "abc" } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/'abc' from env 'PORT' is invalid/);
  });

  it("refuses 0.0.0.0 without endpoint auth, naming the options; --allow-unauthenticated serves with a warning", async () => {
    const refused = await runCli(["serve", PETSTORE, "--transport", "http", "--host", "0.0.0.0", "--port", "0"], {
      env: ENV,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^openapi-mcp: not serving on 0\.0\.0\.0 without endpoint auth: .*--auth-token-env.*--auth-resource.*--allow-unauthenticated/,
    );
    expect(refused.stderr).not.toMatch(STACK_LINE);
    // Started on a taken port, it shows the warning and then stops: the warning comes with every start.
    const allowed = await runCli(
      [
        "serve",
        PETSTORE,
        "--transport",
        "http",
        "--host",
        "0.0.0.0",
        "--port",
        String(taken),
        "--allow-unauthenticated",
      ],
      { env: ENV },
    );
    expect(allowed.stderr).toMatch(/^WARNING --allow-unauthenticated: serving on 0\.0\.0\.0 without endpoint auth/m);
  });
});

describe("npm start", () => {
  it("on a taken port shows the server's message and no URL to connect to", async () => {
    const { code, stdout, stderr } = await npmStart({ env: { PORT: String(taken) } });
    expect(code).toBe(1);
    expect(stderr).toContain(`port ${taken} is in use; set PORT or --port`);
    expect(`${stdout}${stderr}`).not.toMatch(/Connect a client|\/mcp/);
  });

  it("prints how to connect once the server listens, with the URL it listens at", async () => {
    const { stdout, stderr } = await npmStart({ env: { PORT: "0" }, until: /Connect a client[\s\S]*Try one call/ });
    const served = /serving \d+ tools at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
    expect(served).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(served).not.toContain(":0/");
    expect(stdout).toContain(`claude mcp add --transport http example ${served}`);
  });
});
