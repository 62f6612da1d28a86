// The MCP binding proper: tools/list and tools/call on the SDK's low-level `Server`, which serves raw JSON Schema
// (`McpServer.registerTool` takes only standard schemas). This module and its siblings are the only place that
// imports the SDK. One `Server` serves either protocol era: the transports (stdio.ts, endpoint.ts) decide which.

import {
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkErrorCode,
  Server,
} from "@modelcontextprotocol/server";
import { messageOf, stackOf } from "../catalog/errors.js";
import { ProfileRefused } from "../runtime/profiles/profiles.js";
import { servedProvider } from "../runtime/engine/provider-base.js";
import type { ApprovalAnswer, ApprovalRequest, ServedProvider, ToolProvider, ToolResult } from "../runtime/types.js";
import { clipText, QUOTED_NAME_CHARS } from "../runtime/checks/bounds.js";
import type { SignInAnswer, SignInPrompt } from "../runtime/credentials/sign-in-prompt.js";
import { approvalQuestion, approvalTimeoutMs, readAnswer } from "./approval-question.js";
import { type CallTracker, ShutdownError } from "./calls.js";
import { cacheHints } from "./cache-hints.js";
import { capabilities } from "./early.js";
import { callerFromContext } from "./caller.js";
import { callAskingLater } from "./input-required.js";
import { askSignIn } from "./sign-in-question.js";
import { jsonToolPage, type ToolPage, toolPage } from "./pages.js";
import { PROFILE_REFUSED, SERVER_ERROR } from "./rpc-codes.js";

/** What a server says it is in `initialize` (name, version, instructions), and the tools it serves. */
export interface ServerIdentity {
  provider: ToolProvider;
  name: string;
  version: string;
  instructions?: string;
}

export interface McpServerOptions extends ServerIdentity {
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

/** A JSON-RPC error answered to the request, its message as given. */
export class RpcError extends ProtocolError {
  constructor({ code, message }: { code: number; message: string }) {
    super(code, message);
  }
}

/** The provider that answers this request's caller: its profile's, when the server has profiles. */
function providerFor(served: ServedProvider, ctx: Parameters<typeof callerFromContext>[0]): ServedProvider {
  // A registry's provider: the catalog serving now, for the whole request, whatever is published meanwhile.
  const provider = served.snapshot();
  if (!provider.perCaller()) return provider;
  try {
    return provider.forCaller(callerFromContext(ctx));
  } catch (error) {
    if (error instanceof ProfileRefused) throw new RpcError({ code: PROFILE_REFUSED, message: error.message });
    throw error;
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
  const served = servedProvider(provider);
  const server = new Server(
    { name, version },
    // `logging` lets a client set a level (the SDK keeps it per session), which clients and the conformance suite
    // expect of any server; the SDK answers logging/setLevel itself. Shared with the early answers (early.ts), as
    // are the cache hints the SDK puts on 2026-07-28 results (cache-hints.ts).
    {
      capabilities: capabilities({ listChanged: served.changing() }),
      // With profiles, what is listed depends on who asks: no shared cache may serve it to another caller.
      cacheHints: cacheHints({ perPrincipal: served.perCaller(), changing: served.changing() }),
      ...(instructions ? { instructions } : {}),
    },
  );

  // The listing is already in MCP's shape (self-contained schemas, object output schemas): passed through, in
  // pages when it is large (pages.ts).
  server.setRequestHandler("tools/list", (request, ctx) => {
    const provider = providerFor(served, ctx);
    const cursor = request.params?.cursor;
    const listing = provider.listingJson();
    const at = cursor !== undefined ? { cursor } : {};
    // A page serialized already is returned as it is: the stdio transport sends its entries' JSON (pages.ts). Its
    // `tools` is not an array (ListedTools), which the SDK's type cannot say.
    const page = listing
      ? (jsonToolPage({ listing, tools: () => provider.listTools(), ...at }) as unknown as ToolPage | undefined)
      : toolPage({ tools: provider.listTools(), ...at });
    if (!page)
      throw new RpcError({
        code: ProtocolErrorCode.InvalidParams,
        message: "Invalid cursor: it is not one this server gave out; list again from the start (without a cursor)",
      });
    return listing ? (page as ToolPage & Record<string, unknown>) : { ...page };
  });

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const { name: tool, arguments: args } = request.params;
    // A tool outside the caller's profile is as unknown as one that does not exist.
    const provider = providerFor(served, ctx);
    // An unknown tool is a protocol fault, unlike a failed call, which the provider reports with `isError`.
    if (!provider.hasTool(tool))
      throw new RpcError({
        code: ProtocolErrorCode.InvalidParams,
        message: `Unknown tool: ${clipText(tool, QUOTED_NAME_CHARS)}`,
      });
    const { signal: requestSignal, id: requestId } = ctx.mcpReq;
    // The signal fires on notifications/cancelled and when the connection closes; the tracker adds shutdown.
    if (onCancelled) requestSignal.addEventListener("abort", () => onCancelled(requestId), { once: true });
    const session = ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {};
    // Bound at connect (serveStdio, createMcpHandler) or by initialize; revisions are dates, so they compare as text.
    const version = server.getNegotiatedProtocolVersion();
    const modern = version !== undefined && version >= "2026";
    // W3C trace context in `_meta` (2025-11-25 allows any `_meta`; 2026-07-28 names these two): passed as it came,
    // the engine reads it strictly and ignores what is invalid.
    const { traceparent, tracestate } = request.params._meta ?? {};
    const trace = traceparent !== undefined ? { trace: { traceparent, tracestate } } : {};
    const verified = callerFromContext(ctx);
    const caller = verified ? { caller: verified } : {};
    const call = (signal: AbortSignal): Promise<ToolResult | InputRequiredResult> => {
      const context = { signal, ...session, ...trace, ...caller };
      // A 2026-07-28 client is not kept waiting: the question goes back in an input_required result and the answer
      // comes with the client's retry, to any replica (input-required.ts).
      if (modern) return callAskingLater({ provider, tool, args: args ?? {}, ctx, context });
      // An older one is asked on this call's stream, the question withdrawn when the call is cancelled.
      // The engine may withdraw the question (the console answered first): its signal then covers the call's too.
      const approve = (asked: ApprovalRequest, options?: { signal?: AbortSignal }): Promise<ApprovalAnswer> =>
        askApproval({ server, request: asked, signal: options?.signal ?? signal, relatedRequestId: requestId, log });
      const signIn = (prompt: SignInPrompt): Promise<SignInAnswer> =>
        askSignIn({ server, prompt, signal, relatedRequestId: requestId });
      return provider.callTool(tool, args ?? {}, { ...context, approve, signIn });
    };
    try {
      const result = await (calls ? calls.run(requestSignal, call) : call(requestSignal));
      // Already MCP's CallToolResult (or InputRequiredResult); the spread only gives TypeScript the open object type
      // the SDK declares.
      return { ...result };
    } catch (error) {
      if (error instanceof ShutdownError) throw new RpcError({ code: SERVER_ERROR, message: error.message });
      // The provider promises never to reject: a rejection is a bug, so say little to the client and log the rest.
      log?.(`tools/call ${tool} failed: ${stackOf(error)}`);
      throw new RpcError({ code: ProtocolErrorCode.InternalError, message: `Internal error while calling ${tool}` });
    }
  });

  // A 2025 session is told when the tools change (the registry published); a 2026-07-28 request has no stream to
  // tell it on: its client learns from the listing's short ttlMs (cache-hints.ts) or a subscriptions/listen stream
  // (endpoint.ts). Sent only once the session is initialized, and never again after it closes.
  if (served.changing()) {
    const stop = served.onListChanged(() => {
      const version = server.getNegotiatedProtocolVersion();
      if (!server.transport || version === undefined || version >= "2026" || !server.getClientCapabilities()) return;
      server.sendToolListChanged().catch((error: unknown) => log?.(`tools/list_changed not sent: ${messageOf(error)}`));
    });
    const closed = server.onclose;
    server.onclose = () => {
      stop();
      closed?.();
    };
  }
  return server;
}

// setTimeout fires at once for delays beyond a signed 32-bit count of milliseconds (about 24.8 days).
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Asks the human, through the client (MCP form elicitation), to approve one call. Never rejects: a client that
 * cannot be asked answers `unsupported` (nothing is sent to it); no answer within `request.timeoutMs` is
 * `timeout`; the call's own cancellation, a closed connection or an answer that cannot be read is `cancel`.
 */
export async function askApproval({
  server,
  request,
  signal,
  relatedRequestId,
  log,
}: {
  server: Server;
  request: ApprovalRequest;
  /** The call's signal: when it fires, the question is withdrawn (the client is told it was cancelled). */
  signal?: AbortSignal;
  /** The tools/call request this question belongs to: over HTTP, it is sent on that request's stream. */
  relatedRequestId?: string | number;
  log?: ((line: string) => void) | undefined;
}): Promise<ApprovalAnswer> {
  // The SDK reads an empty `elicitation: {}` (protocol 2025-06-18) as form support; URL-only clients cannot confirm.
  if (!server.getClientCapabilities()?.elicitation?.form) return "unsupported";
  if (signal?.aborted) return "cancel";
  try {
    const result = await server.elicitInput(approvalQuestion(request), {
      // The SDK's default request timeout is 60 s: always pass ours.
      timeout: Math.min(approvalTimeoutMs(request), MAX_TIMER_MS),
      ...(signal ? { signal } : {}),
      ...(relatedRequestId !== undefined ? { relatedRequestId } : {}),
    });
    return readAnswer(result);
  } catch (error) {
    // The SDK rejects an aborted request with a RequestTimeout error too: look at the signal first.
    if (signal?.aborted) return "cancel";
    const code = (error as { code?: unknown } | null)?.code;
    if (code === SdkErrorCode.RequestTimeout) return "timeout";
    if (code === ProtocolErrorCode.MethodNotFound) return "unsupported";
    log?.(`approval request for ${request.tool} failed: ${messageOf(error)}`);
    return "cancel";
  }
}
