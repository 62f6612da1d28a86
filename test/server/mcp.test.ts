// The binding in process: the SDK's real Client over InMemoryTransport against createMcpServer.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolProvider } from "../../src/runtime/types.js";
import { CallTracker } from "../../src/server/calls.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { FakeProvider, TOOLS } from "./fake-provider.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect({ provider, calls }: { provider: ToolProvider; calls?: CallTracker }) {
  const server = createMcpServer({
    provider,
    name: "test",
    version: "1.2.3",
    instructions: "Be kind.",
    ...(calls ? { calls } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

describe("createMcpServer", () => {
  it("announces itself, the tools capability and logging (a client may set the level)", async () => {
    const client = await connect({ provider: new FakeProvider() });
    expect(client.getServerVersion()).toEqual({ name: "test", version: "1.2.3" });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false }, logging: {} });
    await expect(client.setLoggingLevel("warning")).resolves.toEqual({});
    expect(client.getInstructions()).toBe("Be kind.");
  });

  it("lists the provider's tools unchanged", async () => {
    const client = await connect({ provider: new FakeProvider() });
    const { tools } = await client.listTools();
    expect(tools).toEqual(TOOLS);
  });

  it("passes arguments through and returns the result as is", async () => {
    const provider = new FakeProvider();
    const client = await connect({ provider });
    const args = { text: "hé", nested: { list: [1, null, { deep: true }] } };
    const result = await client.callTool({ name: "echo", arguments: args });
    expect(result).toEqual({ content: [{ type: "text", text: JSON.stringify(args) }], structuredContent: { args } });
    expect(provider.calls.map((c) => [c.name, c.args])).toEqual([["echo", args]]);
    expect(provider.calls[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it("calls with {} when the client sends no arguments", async () => {
    const provider = new FakeProvider();
    const client = await connect({ provider });
    await client.callTool({ name: "slow" });
    expect(provider.calls[0]!.args).toEqual({});
  });

  it("passes an isError result through as a result, not a protocol error", async () => {
    const failing: ToolProvider = {
      listTools: () => TOOLS,
      hasTool: () => true,
      callTool: async () => ({ content: [{ type: "text", text: "upstream said 500" }], isError: true }),
    };
    const client = await connect({ provider: failing });
    const result = await client.callTool({ name: "slow" });
    expect(result).toEqual({ content: [{ type: "text", text: "upstream said 500" }], isError: true });
  });

  it("answers an unknown tool with a JSON-RPC InvalidParams error and never calls the provider", async () => {
    const provider = new FakeProvider();
    const client = await connect({ provider });
    const error = await client.callTool({ name: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    // The SDK client prefixes the code once; the wire message itself is exactly "Unknown tool: nope".
    expect((error as McpError).message).toBe("MCP error -32602: Unknown tool: nope");
    expect(provider.calls).toEqual([]);
  });

  it("quotes at most 200 characters of an unknown tool's name (a 1 MB name is not echoed back)", async () => {
    const client = await connect({ provider: new FakeProvider() });
    const error = (await client.callTool({ name: "x".repeat(1_000_000) }).catch((e: unknown) => e)) as McpError;
    expect(error.message).toBe(`MCP error -32602: Unknown tool: ${"x".repeat(200)}…`);
  });

  it("turns a provider that rejects (a bug) into an internal error that does not leak the reason", async () => {
    const broken: ToolProvider = {
      listTools: () => TOOLS,
      hasTool: () => true,
      callTool: async () => {
        throw new Error("secret detail");
      },
    };
    const client = await connect({ provider: broken });
    const error = (await client.callTool({ name: "slow" }).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).not.toContain("secret");
  });

  it("aborts the provider's signal when the client cancels the call", async () => {
    const provider = new FakeProvider();
    const client = await connect({ provider });
    const controller = new AbortController();
    const pending = client.callTool({ name: "slow", arguments: { ms: 10_000 } }, undefined, {
      signal: controller.signal,
    });
    const call = await provider.started();
    expect(call.signal?.aborted).toBe(false);
    controller.abort("user pressed stop");
    await expect(pending).rejects.toThrow();
    // notifications/cancelled travels to the server, which aborts the handler's signal.
    await expect(call.done).resolves.toMatchObject({ isError: true, content: [{ text: "cancelled" }] });
    expect(call.signal?.aborted).toBe(true);
  });

  it("aborts running calls through the tracker on shutdown and answers with an error", async () => {
    const provider = new FakeProvider();
    const calls = new CallTracker();
    const client = await connect({ provider, calls });
    const pending = client.callTool({ name: "slow", arguments: { ms: 10_000, ignoreSignal: true } });
    const call = await provider.started();
    expect(calls.size).toBe(1);
    calls.abort();
    const error = (await pending.catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(ErrorCode.ConnectionClosed);
    expect(error.message).toMatch(/shutting down/);
    expect(call.signal?.aborted).toBe(true);
    expect(calls.size).toBe(0);
  });
});
