// The same few calls over the real transports, against a real recording upstream: stdio (the built CLI as a child
// process, credentials from its environment), streamable HTTP stateful and stateless (serve() in process, port 0),
// and the CLI over HTTP with --port 0. Each: tools/list, a call whose wire request is checked, an error result, an
// unknown tool, a cancellation that reaches the upstream.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import { CLI } from "../support/cli.js";
import { type CallResult, call, SECRETS, textOf, WIRE_FIXTURE, wireCatalog } from "../support/e2e.js";
import { hang, json, Upstream } from "../support/upstream.js";
import { testCacheHome } from "../support/cache-env.js";

let upstream: Upstream;
let toolCount: number;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  upstream = await Upstream.start();
  toolCount = (await wireCatalog(`${upstream.url}/v1`)).tools.length;
});
afterAll(() => upstream.close());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  upstream.reset();
});

const ITEM = { id: 3, name: "three", tags: ["t"] };

/** The calls every transport must carry the same way. */
async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(toolCount);
  expect(tools.find((t) => t.name === "getItem")!.outputSchema).toMatchObject({
    type: "object",
    required: ["id", "name"],
  });

  // A call: structured content back, the exact request upstream with the credential from the environment.
  upstream.on("GET", "/v1/anything/x%20y", json({ ok: true }));
  upstream.on("GET", "/v1/items/3", json(ITEM));
  expect(await call(client, "getItem", { id: 3 })).toEqual({
    content: [{ type: "text", text: JSON.stringify(ITEM) }],
    structuredContent: ITEM,
  });
  expect((await call(client, "getAnything", { name: "x y" })).structuredContent).toEqual({ ok: true });
  const [, request] = upstream.requests;
  expect(`${request!.method} ${request!.url}`).toBe("GET /v1/anything/x%20y");
  expect(request!.headers["x-api-key"]).toBe(SECRETS.API_KEY_HEADERKEY);

  // An error result, with the upstream's status and words.
  upstream.on("GET", "/v1/items/4", json({ error: "no item 4" }, { status: 404 }));
  const failed: CallResult = await call(client, "getItem", { id: 4 });
  expect(failed.isError).toBe(true);
  expect(textOf(failed)).toContain("404 Not Found");
  expect(textOf(failed)).toContain("no item 4");

  // Invalid arguments: an error result, nothing sent.
  const before = upstream.requests.length;
  const invalid = await call(client, "getItem", { id: "four" });
  expect(invalid.isError).toBe(true);
  expect(textOf(invalid)).toContain("id must be integer");
  expect(upstream.requests).toHaveLength(before);

  // An unknown tool: a JSON-RPC error.
  const error = await call(client, "noSuchTool").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(ErrorCode.InvalidParams);

  // Still answering after the failures.
  expect((await call(client, "getItem", { id: 3 })).structuredContent).toEqual(ITEM);
}

/**
 * A slow call the client gives up on, by a cancellation notification or by closing the transport: the upstream sees
 * its connection dropped, and the server still answers afterwards (when the client is still there).
 */
async function cancel(client: Client, how: "notification" | "close"): Promise<void> {
  upstream.on("GET", "/v1/anything/slow", hang());
  upstream.on("GET", "/v1/items/3", json(ITEM));
  const controller = new AbortController();
  const pending = call(client, "getAnything", { name: "slow" }, { signal: controller.signal });
  pending.catch(() => {});
  await upstream.received(upstream.requests.length + 1);
  const slow = upstream.requests.at(-1)!;
  if (how === "notification") controller.abort();
  else await client.close();
  await expect(pending).rejects.toThrow();
  await Promise.race([slow.settled, new Promise((resolve) => setTimeout(resolve, 3_000))]);
  expect(slow.abandoned).toBe(true);
  if (how === "notification") expect((await call(client, "getItem", { id: 3 })).structuredContent).toEqual(ITEM);
}

describe("stdio: the built CLI as a child process", () => {
  it("serves the fixture to the SDK client; credentials from the child's environment", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", WIRE_FIXTURE, "--base-url", `${upstream.url}/v1`],
      env: { ...testCacheHome(), ...SECRETS },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "e2e-stdio", version: "0.0.0" });
    const errors: Error[] = [];
    // A line on stdout that is not JSON-RPC would arrive here.
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toEqual({ name: "E2E Wire API", version: "1.2.3" });
    await exercise(client);
    await cancel(client, "notification");
    expect(errors).toEqual([]);
    expect(stderr).toContain(`serving ${toolCount} tools over stdio`);
    for (const secret of Object.values(SECRETS)) expect(stderr).not.toContain(secret);
  });

  it("writes only JSON-RPC messages on stdout, and exits 0 when stdin ends", async () => {
    upstream.on("GET", "/v1/items/3", json(ITEM));
    upstream.on("GET", "/v1/items/4", json({ error: "nope" }, { status: 404 }));
    const child = spawn(process.execPath, [CLI, "serve", WIRE_FIXTURE, "--base-url", `${upstream.url}/v1`], {
      env: { ...process.env, ...SECRETS },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const { stdout, exited } = collect(child);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "getItem", arguments: { id: 3 } } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "getItem", arguments: { id: 4 } } });
    send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "nope", arguments: {} } });
    await waitFor(() => stdout().split("\n").filter(Boolean).length >= 5);
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = stdout().split("\n");
    expect(lines.pop()).toBe("");
    type Reply = { jsonrpc: string; id: number; result?: Record<string, unknown>; error?: { code: number } };
    const replies = lines.map((line) => JSON.parse(line) as Reply).sort((a, b) => a.id - b.id);
    expect(replies.every((r) => r.jsonrpc === "2.0")).toBe(true);
    expect(replies.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(replies[2]!.result).toEqual({
      content: [{ type: "text", text: JSON.stringify(ITEM) }],
      structuredContent: ITEM,
    });
    expect(replies[3]!.result).toMatchObject({ isError: true });
    expect(replies[4]!.error).toMatchObject({ code: ErrorCode.InvalidParams });
  });
});

describe.each([
  ["stateful", false],
  ["stateless", true],
])("streamable HTTP, %s: serve() in process on port 0", (_, stateless) => {
  it("list, call, error result, unknown tool, cancellation", async () => {
    const logs: string[] = [];
    const running = await serve(WIRE_FIXTURE, {
      transport: "http",
      port: 0,
      stateless,
      baseUrl: `${upstream.url}/v1`,
      env: { ...SECRETS },
      log: (line) => logs.push(line),
    });
    cleanups.push(() => running.close());
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const transport = new StreamableHTTPClientTransport(new URL(running.url!));
    const client = new Client({ name: "e2e-http", version: "0.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());
    if (stateless) expect(transport.sessionId).toBeUndefined();
    else expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await exercise(client);
    // A stateful session routes the cancellation notification to the call. A stateless server cannot (the
    // notification arrives as a new request, with no session, at a new server), so a client that gives up there
    // closes its connection, and that aborts the call upstream.
    await cancel(client, stateless ? "close" : "notification");
    for (const secret of Object.values(SECRETS)) expect(logs.join("\n")).not.toContain(secret);
  });
});

describe("the CLI over HTTP with --port 0", () => {
  it("prints the bound URL, serves it, and exits 0 on SIGTERM", async () => {
    upstream.on("GET", "/v1/items/3", json(ITEM));
    const child = spawn(
      process.execPath,
      [CLI, "serve", WIRE_FIXTURE, "--base-url", `${upstream.url}/v1`, "--transport", "http", "--port", "0"],
      {
        env: { ...process.env, ...SECRETS },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const { stdout, stderr, exited } = collect(child);
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    await waitFor(() => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr()));
    const url = /at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr())!;
    expect(Number(url[2])).toBeGreaterThan(0);
    const client = new Client({ name: "e2e-cli-http", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url[1]!)));
    expect((await client.listTools()).tools).toHaveLength(toolCount);
    expect((await call(client, "getItem", { id: 3 })).structuredContent).toEqual(ITEM);
    await client.close();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout()).toBe("");
  });
});

function collect(child: ChildProcessWithoutNullStreams | ReturnType<typeof spawn>) {
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { stdout: () => out, stderr: () => err, exited };
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
