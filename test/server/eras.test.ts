// Both protocol eras from one server: the SDK v2 client speaking 2026-07-28 (no initialize, no session; it opens with
// `server/discover`) beside the v1 client speaking 2025 (initialize, a session), over one HTTP endpoint and over
// stdio, each era decided per request or per connection.

import { fileURLToPath } from "node:url";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
  type ClientOptions,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { connectClient, serveFake } from "./http-support.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));
const PIN_2026: ClientOptions = { versionNegotiation: { mode: { pin: "2026-07-28" } } };
/** The listing is fixed for the life of the server and the same for every caller (src/server/cache-hints.ts). */
const CACHE_HINTS = { ttlMs: 3_600_000, cacheScope: "public" };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connectModern(url: string): Promise<{ client: ModernClient; transport: ModernHttp }> {
  const client = new ModernClient({ name: "modern-client", version: "0.0.0" }, PIN_2026);
  const transport = new ModernHttp(new URL(url));
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

describe("one HTTP endpoint, both eras", () => {
  it.each([false, true])(
    "stateless %s: a 2026-07-28 client and a 2025 one are served side by side",
    async (stateless) => {
      const { handle } = await serveFake({ cleanups, options: { stateless } });
      const old = await connectClient(handle.url);
      cleanups.push(() => old.client.close());
      expect(handle.openSessions()).toBe(stateless ? 0 : 1);

      const { client, transport } = await connectModern(handle.url);
      expect(client.getProtocolEra()).toBe("modern");
      // server/discover answered: the 2026-07-28 revision, our tools capability and who we are.
      expect(client.getDiscoverResult()?.supportedVersions).toContain("2026-07-28");
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      expect(client.getServerVersion()).toMatchObject({ name: "test", version: "1.0.0" });
      // No session: none given, and none opened on the server.
      expect(transport.sessionId).toBeUndefined();
      expect(handle.openSessions()).toBe(stateless ? 0 : 1);

      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(["echo", "slow"]);
      const result = await client.callTool({ name: "echo", arguments: { text: "new" } });
      expect(result.structuredContent).toEqual({ args: { text: "new" } });

      // The 2025 client's session carries on meanwhile.
      const older = await old.client.callTool({ name: "echo", arguments: { text: "old" } });
      expect(older.structuredContent).toEqual({ args: { text: "old" } });
      expect((await old.client.listTools()).tools.map((t) => t.name)).toEqual(["echo", "slow"]);
    },
  );

  it("a 2026-07-28 client's cancellation (it closes the request's stream) aborts the call", async () => {
    const { handle, provider } = await serveFake({ cleanups });
    const { client } = await connectModern(handle.url);
    const controller = new AbortController();
    const pending = client.callTool({ name: "slow", arguments: { ms: 10_000 } }, { signal: controller.signal });
    pending.catch(() => {});
    const call = await provider.started();
    controller.abort();
    expect(await call.done).toMatchObject({ isError: true, content: [{ type: "text", text: "cancelled" }] });
    await expect(pending).rejects.toThrow();
  });

  it.each([false, true])(
    "stateless %s: list results tell a 2026-07-28 client to reuse them for an hour, with anyone",
    async (stateless) => {
      const { handle } = await serveFake({ cleanups, options: { stateless } });
      const { client } = await connectModern(handle.url);
      expect(client.getDiscoverResult()).toMatchObject(CACHE_HINTS);
      expect(await client.listTools()).toMatchObject(CACHE_HINTS);
      // The 2025 era has no such fields: its answers are as they were.
      const old = await connectClient(handle.url);
      cleanups.push(() => old.client.close());
      const listed = await old.client.listTools();
      expect(listed).not.toHaveProperty("ttlMs");
      expect(listed).not.toHaveProperty("cacheScope");
    },
  );

  it("an unknown tool is a JSON-RPC error to a 2026-07-28 client too", async () => {
    const { handle } = await serveFake({ cleanups });
    const { client } = await connectModern(handle.url);
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow("Unknown tool: nope");
  });
});

describe("one stdio server, either era per connection", () => {
  it.each<[string, ClientOptions, "modern" | "legacy", string[]]>([
    ["pinned to 2026-07-28", PIN_2026, "modern", []],
    ["negotiating (auto)", { versionNegotiation: { mode: "auto" } }, "modern", []],
    ["speaking 2025 (its default)", {}, "legacy", []],
    // The listing serialized: 2025's initialize and first tools/list are answered before the SDK loads (early.ts).
    ["pinned to 2026-07-28, with early answers on", PIN_2026, "modern", ["--listed"]],
    ["speaking 2025, with early answers on", {}, "legacy", ["--listed"]],
  ])("serves the SDK v2 client %s", async (_, options, era, flags) => {
    const transport = new ModernStdio({ command: process.execPath, args: [FIXTURE, ...flags], stderr: "pipe" });
    const client = new ModernClient({ name: "modern-client", version: "0.0.0" }, options);
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe(era);
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(["echo"]);
      if (era === "modern") expect(listed).toMatchObject(CACHE_HINTS);
      else expect(listed).not.toHaveProperty("ttlMs");
      const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ name: "echo", args: { text: "hi" } }) }]);
    } finally {
      await client.close();
    }
    expect(errors).toEqual([]);
  });
});
