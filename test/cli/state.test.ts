// --state / MCP_STATE at the command line: `serve` and a generated server read it alike; a Redis that cannot be
// reached stops `serve` with one line (password masked, no stack) and exit 1; --state-fallback memory starts it
// with a warning; a reachable Redis serves. Without --state-secret, what Redis could hold only sealed or under keyed
// names (the console's approval queue, profiles' per-caller budgets) stops `serve`, saying what needs the secret.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readServeOptions } from "../../src/cli/serve.js";
import { readServerCommandLine } from "../../src/server/command-line.js";
import { runCli, STACK_LINE } from "../support/cli.js";
import { REPOSITORY } from "../support/generated.js";
import { spawnCli, tempDir, waitFor, writeFile } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";

const PETSTORE = join(REPOSITORY, "examples/petstore.openapi.yaml");
const SERVING = /serving \d+ tools at http:\/\/\S+\/mcp/;

let server: RedisServer;
let deadUrl: string;

beforeAll(async () => {
  server = await RedisServer.start();
  const dead = await RedisServer.start();
  await dead.stop();
  deadUrl = `redis://default:hunter2-secret@127.0.0.1:${dead.port}`;
});
afterAll(async () => {
  await server?.stop();
});

async function served(args: string[], env: Record<string, string> = {}): Promise<string> {
  const spawned = spawnCli(["serve", PETSTORE, "--transport", "http", "--port", "0", ...args], env);
  try {
    await waitFor(() => SERVING.test(spawned.stderr()) || spawned.child.exitCode !== null, 20_000);
    return spawned.stderr();
  } finally {
    spawned.child.kill();
    await spawned.exited;
  }
}

describe("--state", () => {
  it("is read from MCP_STATE (and the flags) by serve as by a generated server", () => {
    const env = { MCP_STATE: "redis://127.0.0.1:6379", MCP_STATE_FAIL: "open", MCP_STATE_FALLBACK: "memory" };
    const generated = readServerCommandLine({ args: [], env });
    expect("settings" in generated && generated.settings).toMatchObject({
      state: env.MCP_STATE,
      stateFail: "open",
      stateFallback: "memory",
    });
    const given = readServeOptions(["--state", "rediss://cache:6380", "--state-fail", "closed"]);
    expect(given).toMatchObject({ state: "rediss://cache:6380", stateFail: "closed" });
  });

  it("a Redis that cannot be reached stops serve with one line, the password masked", async () => {
    const result = await runCli(["serve", PETSTORE], { env: { MCP_STATE: deadUrl } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `the shared state at redis://default:***@127.0.0.1:${new URL(deadUrl).port} (--state, MCP_STATE) cannot be reached`,
    );
    expect(result.stderr).not.toContain("hunter2");
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it("--state-fallback memory starts anyway, and says limits count per replica", async () => {
    const stderr = await served(["--state", deadUrl, "--state-fallback", "memory"]);
    expect(stderr).toMatch(SERVING);
    expect(stderr).toContain("WARNING --state-fallback memory");
    expect(stderr).toContain("count per replica");
    expect(stderr).not.toContain("hunter2");
  });

  it("without --state-secret, a console (its approval queue) stops serve, saying what needs the secret", async () => {
    const args = ["serve", PETSTORE, "--transport", "http", "--port", "0", "--console"];
    const result = await runCli([...args, "--console-token-env", "CONSOLE_TOKEN", "--state", server.url], {
      env: { CONSOLE_TOKEN: "console-admin-token-0123456789abcdef" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "\nopenapi-mcp: not starting: --state is Redis, and the console's approval queue (its entries and decisions are sealed with the secret) can be shared there only with --state-secret (MCP_STATE_SECRET), which is not set. Give every replica the same secret (make one with: openssl rand -base64 32)\n",
    );
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it("without --state-secret, profiles' per-caller budgets stop serve, naming the profile", async () => {
    const temp = tempDir();
    try {
      const config = writeFile(temp.dir, "settings.json", {
        profiles: { team: { match: { token: "alice" }, rateLimits: { calls: { requests: 5, windowSeconds: 60 } } } },
      });
      const args = ["serve", PETSTORE, "--transport", "http", "--port", "0", "--auth-token-env", "MCP_TOKENS"];
      const result = await runCli([...args, "--config", config, "--state", server.url], {
        env: { MCP_TOKENS: "alice=alice-token-0123456789abcdef0123456789" },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `not starting: --state is Redis, and the per-caller budgets of profile team in ${config} (their keys name callers by a digest keyed with the secret) can be shared there only with --state-secret (MCP_STATE_SECRET)`,
      );
      expect(result.stderr).not.toMatch(STACK_LINE);
    } finally {
      temp.remove();
    }
  });

  it("a reachable Redis serves", async () => {
    const stderr = await served([], { MCP_STATE: server.url });
    expect(stderr).toMatch(SERVING);
    expect(stderr).not.toContain("WARNING");
  });
});
