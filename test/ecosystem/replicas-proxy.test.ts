// Replicas behind a load balancer, as docs/production.md runs them: three `serve --transport http`
// processes (the built CLI) behind the round-robin proxy of test/support. A 2026-07-28 client needs no session, so
// its requests spread over all three; a 2025 client's session lives in one process: with sticky routing by
// `Mcp-Session-Id` it works, without it the next request reaches a replica that never saw the session and gets
// 404 "Session not found".

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { example } from "../support/fixtures.js";
import { spawnCli, textOf, waitFor } from "../support/guard.js";
import { type RoundRobinProxy, startRoundRobinProxy } from "../support/round-robin-proxy.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = example("petstore.openapi.yaml");
const SECRET = "replicas-behind-a-balancer-secret-0123456789";

let api: Upstream;
let replicas: string[] = [];
const stops: Array<() => Promise<void>> = [];
const cleanups: Array<() => unknown> = [];

/** One `serve` process on a free port: its origin, from the line it prints when listening. */
async function replica(): Promise<string> {
  const args = ["serve", PETSTORE, "--transport", "http", "--port", "0", "--base-url", `${api.url}/v1`];
  const spawned = spawnCli(args, { API_KEY_API_KEY: "pk-balanced", MCP_STATE_SECRET: SECRET });
  stops.push(async () => {
    spawned.child.kill("SIGTERM");
    await spawned.exited;
  });
  const listening = /serving \d+ tools at (http:\/\/\S+)\/mcp/;
  await waitFor(() => listening.test(spawned.stderr()) || spawned.child.exitCode !== null, 20_000);
  const origin = listening.exec(spawned.stderr())?.[1];
  if (!origin) throw new Error(`serve did not start:\n${spawned.stderr()}`);
  return origin;
}

beforeAll(async () => {
  api = await Upstream.start();
  replicas = await Promise.all([replica(), replica(), replica()]);
}, 60_000);
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await api.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  api.reset();
});

async function proxy(sticky: boolean): Promise<RoundRobinProxy> {
  const started = await startRoundRobinProxy({ upstreams: replicas, sticky });
  cleanups.push(() => started.close());
  return started;
}

async function legacyClient(url: string): Promise<Client> {
  const client = new Client({ name: "legacy", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close().catch(() => {}));
  return client;
}

describe("three replicas behind a round-robin load balancer", () => {
  it("a 2026-07-28 client lists and calls, its requests spread over all three", async () => {
    api.on("GET", "/v1/pets", json([{ id: 1, name: "Rex" }]));
    const balancer = await proxy(false);
    const client = new ModernClient(
      { name: "modern", version: "0.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new ModernTransport(new URL(`${balancer.url}/mcp`)));
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe("modern");
    const before = balancer.counts.reduce((a, b) => a + b, 0);
    for (let i = 0; i < 6; i++) {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("listPets");
      const result = await client.callTool({ name: "listPets", arguments: {} });
      expect(textOf(result)).toContain("Rex");
    }
    expect(api.requests).toHaveLength(6);
    // Six calls and the listing (the client keeps the list it got) after connecting, in turn over the three.
    expect(balancer.counts.reduce((a, b) => a + b, 0) - before).toBeGreaterThanOrEqual(7);
    for (const count of balancer.counts) expect(count).toBeGreaterThanOrEqual(2);
  });

  it("a 2025 client works when the balancer sticks its session to one replica", async () => {
    api.on("GET", "/v1/pets", json([{ id: 2, name: "Tom" }]));
    const balancer = await proxy(true);
    const client = await legacyClient(`${balancer.url}/mcp`);
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({ name: "listPets", arguments: {} });
      expect(textOf(result)).toContain("Tom");
    }
    expect(api.requests).toHaveLength(4);
    // The session's requests all went to the replica that opened it.
    expect(balancer.counts.filter((count) => count > 0)).toHaveLength(1);
  });

  it("without stickiness, a 2025 client's next request reaches another replica: 404 Session not found", async () => {
    const balancer = await proxy(false);
    // initialize went to replica 1, which opened the session; the client's next message (notifications/initialized)
    // went to replica 2, which never saw it.
    await expect(legacyClient(`${balancer.url}/mcp`)).rejects.toThrow(/Session not found/);
    expect(balancer.counts).toEqual([1, 1, 0]);
  });

  it("streams an event stream through as it is written, headers and all", async () => {
    let finish = () => {};
    const events = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "x-seen-header": String(req.headers["x-probe"]) });
      res.write("data: first\n\n");
      finish = () => res.end("data: last\n\n");
    });
    await new Promise<void>((resolve) => events.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => events.close(resolve)));
    const { port } = events.address() as AddressInfo;
    const balancer = await startRoundRobinProxy({ upstreams: [`http://127.0.0.1:${port}`] });
    cleanups.push(() => balancer.close());
    const response = await fetch(`${balancer.url}/stream`, { headers: { "x-probe": "passed" } });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-seen-header")).toBe("passed");
    const reader = response.body!.getReader();
    // The first event arrives while the upstream still holds the response open.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    finish();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: last\n\n");
  });

  it("cuts the client's stream when its upstream dies mid-answer (the client is not left waiting)", async () => {
    const dying = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      // The process dies with the answer half sent.
      setTimeout(() => res.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => dying.close(resolve)));
    const { port } = dying.address() as AddressInfo;
    const balancer = await startRoundRobinProxy({ upstreams: [`http://127.0.0.1:${port}`] });
    cleanups.push(() => balancer.close());
    const response = await fetch(`${balancer.url}/stream`);
    await expect(response.text()).rejects.toThrow();
  });

  it("sends a request pinned by the test's header to that upstream, without the header", async () => {
    const seen: Array<{ port: number; pin: string | undefined }> = [];
    const servers = await Promise.all(
      [0, 1, 2].map(async () => {
        const server = createServer((req, res) => {
          seen.push({ port: (server.address() as AddressInfo).port, pin: req.headers["x-pin"] as string | undefined });
          res.end("ok");
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        cleanups.push(() => new Promise((resolve) => server.close(resolve)));
        return server;
      }),
    );
    const ports = servers.map((server) => (server.address() as AddressInfo).port);
    const balancer = await startRoundRobinProxy({
      upstreams: ports.map((p) => `http://127.0.0.1:${p}`),
      pinHeader: "x-pin",
    });
    cleanups.push(() => balancer.close());
    for (const pin of ["2", "2", "0", "2"]) await (await fetch(balancer.url, { headers: { "x-pin": pin } })).text();
    expect(seen).toEqual([2, 2, 0, 2].map((i) => ({ port: ports[i], pin: undefined })));
    expect(balancer.counts).toEqual([1, 0, 3]);
  });
});
