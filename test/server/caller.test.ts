// The verified caller reaches the tool provider with every call, whichever era and HTTP mode the client uses: its
// principal, its claims, its token (for an upstream token exchange only) and its request's headers without
// Authorization. Without endpoint auth there is no caller. Real SDK clients of both eras over loopback HTTP.

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { serve } from "./auth-support.js";

const TOKEN = "caller-test-token-0123456789abcdef";
const OTHER = "caller-test-other-token-9876543210";
const HEADERS = { authorization: `Bearer ${TOKEN}`, "x-upstream-authorization": "Bearer upstream-of-alice" };

afterEach(() => {
  vi.unstubAllEnvs();
});

function tokens() {
  vi.stubEnv("MCP_CALLER_TOKENS", `${OTHER}, ${TOKEN}`);
  return { type: "static" as const, tokenEnv: "MCP_CALLER_TOKENS" };
}

async function callLegacy(url: string, headers: Record<string, string>): Promise<void> {
  const client = new Client({ name: "legacy", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  await client.callTool({ name: "echo", arguments: { text: "hi" } });
}

async function callModern(url: string, headers: Record<string, string>): Promise<void> {
  const client = new ModernClient(
    { name: "modern", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  expect(client.getProtocolEra()).toBe("modern");
  await client.callTool({ name: "echo", arguments: { text: "hi" } });
}

describe("the verified caller reaches the provider", () => {
  it.each([
    ["a 2025-11-25 client in a session", callLegacy, {}],
    ["a 2025-11-25 client, stateless", callLegacy, { stateless: true }],
    ["a 2026-07-28 client", callModern, {}],
  ])("%s", async (_, call, extra) => {
    const { handle, provider } = await serve(tokens(), extra);
    await call(handle.url, HEADERS);
    const caller = provider.calls.at(-1)?.caller;
    expect(caller).toMatchObject({ principal: "static:1", claims: { token: "#2" }, accessToken: TOKEN });
    expect(caller?.headers["x-upstream-authorization"]).toBe("Bearer upstream-of-alice");
    expect(caller?.headers).not.toHaveProperty("authorization");
  });

  it("is absent without endpoint auth", async () => {
    const { serveFake } = await import("./http-support.js");
    const cleanups: Array<() => unknown> = [];
    onTestFinished(async () => {
      for (const cleanup of cleanups) await cleanup();
    });
    const { handle, provider } = await serveFake({ cleanups });
    await callLegacy(handle.url, { "x-upstream-authorization": "Bearer nobody" });
    await callModern(handle.url, {});
    expect(provider.calls.map((call) => call.caller)).toEqual([undefined, undefined]);
  });
});
