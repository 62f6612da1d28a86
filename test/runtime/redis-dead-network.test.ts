// A Redis behind a network that goes silent (no RST, no FIN: a TCP relay that keeps accepting bytes and forwards
// none), as when a link or a NAT entry dies. node-redis alone would wait on that connection until the kernel gives
// up, which never happens while the far side acknowledges; the connection is replaced after a few commands in a
// row time out, so rate-limited calls, which fail closed meanwhile, work again within seconds.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import { RedisRateLimiter } from "../../src/runtime/shared/redis-limiter.js";
import { connectRedis } from "../../src/runtime/shared/redis.js";
import { BlackholeRelay } from "../support/blackhole-relay.js";
import { RedisServer } from "../support/redis.js";
import { json, Upstream } from "../support/upstream.js";

let server: RedisServer;
let relay: BlackholeRelay;
let api: Upstream;
let catalog: Catalog;

beforeAll(async () => {
  server = await RedisServer.start();
  relay = await BlackholeRelay.start({ targetPort: server.port });
  api = await Upstream.start();
  api.on("GET", "/items", json({ items: [] }));
  catalog = await loadCatalog({
    name: "silent",
    document: {
      openapi: "3.0.3",
      info: { title: "Silent network", version: "1" },
      servers: [{ url: api.url }],
      paths: { "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } } },
    },
  });
});
afterAll(async () => {
  await relay?.close();
  await api?.close();
  await server?.stop();
});

describe("a network to Redis that goes silent", () => {
  it("fails limited calls closed, then reconnects and admits them again within seconds", async () => {
    const lines: string[] = [];
    const redis = await connectRedis({ url: relay.url, log: (line) => lines.push(line), commandTimeoutMs: 300 });
    const engine = new Engine({
      catalog,
      env: {},
      limiter: new RedisRateLimiter({ redis, log: () => {} }),
      rateLimits: { tools: { listItems: { requests: 1000, windowSeconds: 60 } } },
    });
    try {
      expect((await engine.callTool("listItems", {})).isError).toBeFalsy();
      relay.silenceOpenConnections();
      const refused = await engine.callTool("listItems", {});
      expect(JSON.stringify(refused.content)).toContain("the shared rate limit cannot be checked (Redis unreachable)");
      const silenced = Date.now();
      await expect
        .poll(async () => (await engine.callTool("listItems", {})).isError ?? false, { timeout: 8_000, interval: 50 })
        .toBe(false);
      // Well within "a few seconds": three command timeouts of 300 ms and a new connection.
      expect(Date.now() - silenced).toBeLessThan(5_000);
      expect(lines.join("\n")).toMatch(/did not answer 3 commands in a row; connecting again/);
    } finally {
      // Bounded: without the fix, closing waits for replies the silent connection never delivers.
      await Promise.race([redis.close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    }
  });
});
