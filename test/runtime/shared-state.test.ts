// Opening the shared state (--state): memory by default; a Redis that cannot be reached at start stops the start
// with a clear error naming the URL (password masked), unless --state-fallback memory says to run alone (warns).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/catalog/errors.js";
import { openSharedState } from "../../src/runtime/shared/shared-state.js";
import { RedisServer } from "../support/redis.js";

let server: RedisServer;
/** A port nothing listens on: the server's, once stopped. */
let deadUrl: string;

beforeAll(async () => {
  server = await RedisServer.start();
  const dead = await RedisServer.start();
  await dead.stop();
  deadUrl = `redis://:hunter2-secret@127.0.0.1:${dead.port}/0`;
});
afterAll(async () => {
  await server?.stop();
});

describe("openSharedState", () => {
  it("keeps state in memory by default", async () => {
    const state = await openSharedState({ log: () => {} });
    expect(state.limiter).toBeUndefined();
    expect(state.redis).toBeUndefined();
  });

  it("connects to Redis and counts rate limits there", async () => {
    const state = await openSharedState({ state: server.url, log: () => {} });
    try {
      expect(state.limiter).toBeDefined();
      expect(await state.redis?.sendCommand(["PING"])).toBe("PONG");
    } finally {
      await state.close();
    }
  });

  it("refuses to start when Redis cannot be reached, naming the URL without its password", async () => {
    const started = Date.now();
    const error = await openSharedState({ state: deadUrl, log: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).toContain(`redis://:***@127.0.0.1:${new URL(deadUrl).port}/0`);
    expect(message).toContain("--state");
    expect(message).toContain("--state-fallback memory");
    expect(message).not.toContain("hunter2");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("starts with memory only when told to, and warns", async () => {
    const lines: string[] = [];
    const state = await openSharedState({ state: deadUrl, stateFallback: "memory", log: (line) => lines.push(line) });
    expect(state.limiter).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^WARNING --state-fallback memory: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0 unreachable/,
    );
    expect(lines[0]).toContain("count per replica");
    expect(lines.join("\n")).not.toContain("hunter2");
  });

  it.each(["redis", "http://127.0.0.1:6379", "valkey://127.0.0.1:6379", ""])(
    "refuses the --state value %j",
    async (state) => {
      await expect(openSharedState({ state, log: () => {} })).rejects.toThrow(
        /--state \(MCP_STATE, settings state\) must be 'memory' or a redis:\/\//,
      );
    },
  );
});
