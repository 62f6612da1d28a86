// Graceful shutdown of the HTTP server: in-flight calls finish within the grace period; past it they are aborted,
// their clients get an error, and close() still returns with the port released.

import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpOptions, serveHttp } from "../../src/server/http.js";
import { FakeProvider } from "./fake-provider.js";
import { connectClient } from "./http-support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: Partial<HttpOptions>) {
  const provider = new FakeProvider();
  const handle = await serveHttp({ provider, name: "test", version: "1.0.0", port: 0, log: () => {}, ...options });
  const { client } = await connectClient(handle.url);
  cleanups.push(() => client.close());
  return { provider, handle, client };
}

async function refused(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    () => true,
  );
}

describe.each([false, true])("serveHttp close() (stateless: %s)", (stateless) => {
  it("lets an in-flight call finish when the grace period allows", async () => {
    const { provider, handle, client } = await setup({ stateless, graceMs: 5_000 });
    const pending = client.callTool({ name: "slow", arguments: { ms: 300 } });
    const call = await provider.started();
    const closed = handle.close();
    await expect(pending).resolves.toEqual({ content: [{ type: "text", text: "slept 300 ms" }] });
    await closed;
    expect(call.signal?.aborted).toBe(false);
    expect(await refused(`http://127.0.0.1:${handle.port}/healthz`)).toBe(true);
  });

  it("aborts a call that outlives the grace period: the provider's signal fires, the client gets an error", async () => {
    const { provider, handle, client } = await setup({ stateless, graceMs: 100 });
    const outcome = client.callTool({ name: "slow", arguments: { ms: 30_000 } }).catch((e: unknown) => e);
    const call = await provider.started();
    const started = Date.now();
    await handle.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect((error as McpError).message).toMatch(/^MCP error -32000: The server is shutting down/);
    expect(call.signal?.aborted).toBe(true);
    await expect(call.done).resolves.toMatchObject({ isError: true });
    expect(await refused(`http://127.0.0.1:${handle.port}/healthz`)).toBe(true);
  });

  it("answers even when the provider ignores its signal", async () => {
    const { provider, handle, client } = await setup({ stateless, graceMs: 100 });
    const outcome = client
      .callTool({ name: "slow", arguments: { ms: 2_000, ignoreSignal: true } })
      .catch((e: unknown) => e);
    await provider.started();
    await handle.close();
    expect(String(await outcome)).toMatch(/shutting down/);
  });
});

describe("serveHttp close()", () => {
  it("refuses new sessions once closing, and can be called twice", async () => {
    const { provider, handle, client } = await setup({ graceMs: 5_000 });
    const pending = client.callTool({ name: "slow", arguments: { ms: 300 } });
    await provider.started();
    const first = handle.close();
    const second = handle.close();
    // The listening socket is closed at once: a new client cannot connect.
    await expect(connectClient(handle.url)).rejects.toThrow();
    await expect(pending).resolves.toBeDefined();
    await Promise.all([first, second]);
  });

  it("closes at once with nothing in flight, even with sessions open", async () => {
    const { handle } = await setup({ graceMs: 10_000 });
    const started = Date.now();
    await handle.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
