// The callers bench/call.mjs times: the direct request (undici, the floor) and MCP clients over stdio, the SDK v1
// Client (as old hosts use) or the SDK v2 Client speaking either protocol era (2025-11-25: `initialize`, the v2
// Client's default; 2026-07-28: pinned, no `initialize`, `server/discover`, each request in the era's `_meta`).

import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Agent } from "undici";

export const ARGUMENTS = { id: "42", verbose: true };
export const EXPECTED = { id: 42, name: "widget", price: 9.5, tags: ["blue", "small"] };
const INFO = { name: "bench-call", version: "0.0.0" };

/** The request the engine sends (URL, Accept) on a keep-alive Agent as the engine's, the JSON parsed. */
export function directCaller(origin) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  const call = async () => {
    const response = await agent.request({
      origin,
      path: `/v1/widgets/${ARGUMENTS.id}?verbose=${ARGUMENTS.verbose}`,
      method: "GET",
      headers: { accept: "application/json" },
    });
    const data = await response.body.json();
    if (response.statusCode !== 200 || data.id !== 42)
      throw new Error(`direct: unexpected answer ${response.statusCode}`);
    return data;
  };
  return { call, close: () => agent.close() };
}

/**
 * Starts `node ...args` and connects an MCP client to it: `sdk` "v1" or "v2", `era` "2025" or "2026" (v2 only).
 * The first call's answer is checked (the same data direct gets) before anything is timed.
 */
export async function mcpCaller({ args, sdk, era = "2025", tool = "getWidget" }) {
  const Transport = sdk === "v1" ? StdioV1 : StdioV2;
  const transport = new Transport({ command: process.execPath, args, stderr: "pipe" });
  let log = "";
  transport.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const client =
    sdk === "v1"
      ? new ClientV1(INFO)
      : new ClientV2(INFO, era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
  await client.connect(transport);
  const version = sdk === "v1" ? "2025-11-25" : client.getNegotiatedProtocolVersion?.();
  const call = async () => {
    const result = await client.callTool({ name: tool, arguments: ARGUMENTS });
    if (result.isError) throw new Error(`error result: ${JSON.stringify(result.content)}\n${log}`);
    return result;
  };
  const first = await call();
  // Structured content where the server gives it; the peer answers the body as text.
  const data = first.structuredContent ?? JSON.parse(first.content?.[0]?.text ?? "null");
  if (JSON.stringify(data) !== JSON.stringify(EXPECTED))
    throw new Error(`unexpected answer ${JSON.stringify(first)}\n${log}`);
  return { call, close: () => client.close(), pid: transport.pid, version };
}
