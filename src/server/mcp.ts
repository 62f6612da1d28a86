// The MCP binding proper: tools/list and tools/call on the SDK's low-level `Server`, which serves raw JSON Schema
// (`McpServer.registerTool` takes only zod). This module and its siblings are the only place that imports the SDK,
// so SDK v2 (no sessions, no initialize) is a change here alone.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolProvider, ToolResult } from "../runtime/types.js";
import { type CallTracker, ShutdownError } from "./calls.js";

export interface McpServerOptions {
  provider: ToolProvider;
  name: string;
  version: string;
  instructions?: string;
  /** Shared with the transport's shutdown: calls are tracked, and aborted when the grace period ends. */
  calls?: CallTracker;
  /**
   * Told when a call's request is cancelled (or its connection closes). The SDK sends no answer to a cancelled
   * request, so a streamable HTTP transport would keep that request's response stream open until the session ends.
   */
  onCancelled?: (requestId: string | number) => void;
  /** Diagnostics (never stdout in stdio mode). */
  log?: (line: string) => void;
}

/**
 * An McpError whose wire message is just `message`: McpError's constructor prefixes "MCP error <code>: " to the
 * message the SDK then sends, and the client's McpError prefixes it again.
 */
export class RpcError extends McpError {
  constructor({ code, message }: { code: ErrorCode; message: string }) {
    super(code, message);
    this.message = message;
  }
}

export function createMcpServer({
  provider,
  name,
  version,
  instructions,
  calls,
  onCancelled,
  log,
}: McpServerOptions): Server {
  const server = new Server(
    { name, version },
    { capabilities: { tools: { listChanged: false } }, ...(instructions ? { instructions } : {}) },
  );

  // The listing is already in MCP's shape (self-contained schemas, object output schemas): pass it through.
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: provider.listTools() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name: tool, arguments: args } = request.params;
    // An unknown tool is a protocol fault, unlike a failed call, which the provider reports with `isError`.
    if (!provider.hasTool(tool))
      throw new RpcError({ code: ErrorCode.InvalidParams, message: `Unknown tool: ${tool}` });
    // extra.signal fires on notifications/cancelled and when the connection closes; the tracker adds shutdown.
    if (onCancelled) extra.signal.addEventListener("abort", () => onCancelled(extra.requestId), { once: true });
    const session = extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {};
    const call = (signal: AbortSignal): Promise<ToolResult> => provider.callTool(tool, args ?? {}, { signal, ...session });
    try {
      const result: ToolResult = await (calls ? calls.run(extra.signal, call) : call(extra.signal));
      // Already MCP's CallToolResult; the spread only gives TypeScript the open object type the SDK declares.
      return { ...result };
    } catch (error) {
      if (error instanceof ShutdownError)
        throw new RpcError({ code: ErrorCode.ConnectionClosed, message: error.message });
      // The provider promises never to reject: a rejection is a bug, so say little to the client and log the rest.
      log?.(`tools/call ${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw new RpcError({ code: ErrorCode.InternalError, message: `Internal error while calling ${tool}` });
    }
  });

  return server;
}
