// The --state Redis connection ends with what opened it: a real redis-server's CLIENT LIST shows the connection of
// `serve` while it runs and no longer once it has closed (or once a start it refused has ended), and none left by
// `call` once its call is over.

import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool } from "../../src/app/call.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { serve } from "../../src/app/serve.js";
import { REPOSITORY } from "../support/generated.js";
import { RedisServer } from "../support/redis.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(REPOSITORY, "examples/petstore.openapi.yaml");

let redis: RedisServer;
let admin: RedisConnection;
let adminId: string;

beforeAll(async () => {
  redis = await RedisServer.start();
  admin = await connectRedis({ url: redis.url, log: () => {} });
  adminId = String(await admin.sendCommand(["CLIENT", "ID"]));
});
afterAll(async () => {
  await admin?.close();
  await redis?.stop();
});

/** The connections Redis has besides this test's own. */
async function others(): Promise<string[]> {
  const list = String(await admin.sendCommand(["CLIENT", "LIST"]));
  return list.split("\n").filter((line) => line.trim() !== "" && !line.startsWith(`id=${adminId} `));
}

/** Redis's count of those, once it is `count` or 2 s have passed (a closed socket is seen a moment later). */
async function connections(count: number): Promise<number> {
  const deadline = Date.now() + 2_000;
  let seen = (await others()).length;
  while (seen !== count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen = (await others()).length;
  }
  return seen;
}

describe("the --state Redis connection", () => {
  it("is closed when serve closes", async () => {
    const running = await serve(PETSTORE, {
      transport: "http",
      port: 0,
      state: redis.url,
      log: () => {},
      cache: false,
    });
    expect(await connections(1)).toBe(1);
    await running.close();
    expect(await connections(0)).toBe(0);
  });

  it("is closed when serve cannot start after opening it (its port taken)", async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(
        serve(PETSTORE, { transport: "http", port, state: redis.url, log: () => {}, cache: false }),
      ).rejects.toThrow();
      expect(await connections(0)).toBe(0);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("is closed when call has made its call", async () => {
    const api = await Upstream.start();
    try {
      api.on("GET", "/v1/pets", json([]));
      const report = await callTool(PETSTORE, {
        tool: "listPets",
        args: {},
        baseUrl: `${api.url}/v1`,
        state: redis.url,
        log: () => {},
        cache: false,
      });
      expect(report.result?.isError ?? false).toBe(false);
      expect(api.requests).toHaveLength(1);
      expect(await connections(0)).toBe(0);
    } finally {
      await api.close();
    }
  });
});
