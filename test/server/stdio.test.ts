// stdio end to end: a child process serving a fake provider through the built binding (dist/, built by `npm test`),
// driven by the SDK's StdioClientTransport, and by hand to see every byte of stdout.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { serveStdio } from "../../src/server/stdio.js";
import { FakeProvider } from "./fake-provider.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));

describe("serveStdio", () => {
  it("serves tools/list and tools/call to the SDK client", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "test-client", version: "0.0.0" });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
      const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ name: "echo", args: { text: "hi" } }) }]);
    } finally {
      await client.close();
    }
    // The provider's console.log went to stderr, and the client never saw a line it could not parse.
    expect(stderr).toContain("a stray log line from the provider");
    expect(errors).toEqual([]);
  });

  it("writes nothing but JSON-RPC messages on stdout, and exits when stdin ends", async () => {
    const child = spawn(process.execPath, [FIXTURE], { stdio: ["pipe", "pipe", "pipe"] });
    const { stdout, stderr, exited } = collect(child);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { n: 1 } } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope", arguments: {} } });
    await waitFor(() => stdout().split("\n").filter(Boolean).length >= 4);
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = stdout().split("\n");
    expect(lines.pop()).toBe("");
    type Reply = { jsonrpc: string; id: number; result?: unknown; error?: unknown };
    // Answers come as calls finish, not in request order.
    const messages = lines.map((line) => JSON.parse(line) as Reply).sort((a, b) => a.id - b.id);
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(messages[2]!.result).toEqual({ content: [{ type: "text", text: '{"name":"echo","args":{"n":1}}' }] });
    expect(messages[3]!.error).toEqual({ code: -32602, message: "Unknown tool: nope" });
    expect(stderr()).toContain("a stray log line");
    expect(stderr()).toContain("fixture: session closed");
  });
});

describe("serveStdio close()", () => {
  it("aborts a call that outlives the grace period, answers it with an error, then ends the session", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const provider = new FakeProvider();
    const handle = await serveStdio({ provider, name: "t", version: "1", graceMs: 50, stdin, stdout, log: () => {} });
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow", arguments: { ms: 30_000 } } };
    stdin.write(`${JSON.stringify(call)}\n`);
    const started = await provider.started();
    await handle.close();
    await handle.closed;
    expect(started.signal?.aborted).toBe(true);
    expect(JSON.parse(out.trim())).toMatchObject({
      id: 7,
      error: { code: -32000, message: expect.stringMatching(/shutting down/) },
    });
  });
});

function collect(child: ChildProcessWithoutNullStreams) {
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { stdout: () => out, stderr: () => err, exited };
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
