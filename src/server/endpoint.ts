// The `/mcp` endpoint behind the HTTP guard: which SDK transport a request goes to. Each request is first sorted by
// protocol era, as the SDK itself would (`isLegacyRequest`): a 2026-07-28 request (it carries the `_meta` envelope)
// goes to the SDK's per-request handler, which needs no session. A 2025-era one goes, stateful, to one transport and
// one `Server` per session, found by `Mcp-Session-Id`; stateless (`--stateless`, for replicas behind a load
// balancer), to a fresh pair per request, because the SDK refuses to reuse a stateless transport (it would mix up
// JSON-RPC ids across clients). Sessions are bounded (sessions.ts): they expire when idle and are capped, per
// principal too.

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { ProfileRefused } from "../runtime/profiles/profiles.js";
import { servedProvider } from "../runtime/engine/provider-base.js";
import type { Caller, ServedProvider } from "../runtime/types.js";
import type { CallTracker } from "./calls.js";
import { callerAuthInfo } from "./caller.js";
import { createMcpServer, type ServerIdentity } from "./mcp.js";
import { sdkErrorLine } from "./log-lines.js";
import { PROFILE_REFUSED, SERVER_ERROR, SESSION_NOT_FOUND } from "./rpc-codes.js";
import { type SessionLimits, type Slot, SessionTable } from "./sessions.js";
import { sendWebResponse, toWebRequest } from "./web-bridge.js";

type Transport = WebStandardStreamableHTTPServerTransport;

export interface EndpointOptions extends ServerIdentity {
  stateless: boolean;
  calls: CallTracker;
  log: (line: string) => void;
  sessions?: SessionLimits;
}

interface Session {
  transport: Transport;
  slot: Slot;
}

/** A request that passed the guard and endpoint auth, with its parsed body (a POST's) and who made it. */
export interface EndpointRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: unknown;
  /** Who endpoint auth says made the request; none without endpoint auth. */
  caller?: Caller;
}

/** A request as the SDK's transports take it, with the caller's AuthInfo when there is one. */
interface Forwarded {
  request: Request;
  auth: { authInfo?: AuthInfo };
}

/** Writes a JSON-RPC error with no id, the shape the SDK uses for transport-level refusals. */
export function sendRpcError({
  res,
  status,
  code,
  message,
  headers = {},
}: {
  res: ServerResponse;
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
}

export class McpEndpoint {
  /** By session id; each slot knows the principal that opened it (with endpoint auth): only it may use the id. */
  private readonly sessions = new Map<string, Session>();
  private readonly table: SessionTable;
  /** Everything open that close() must close: session transports, and stateless transports mid-request. */
  private readonly open = new Set<Transport>();
  /** 2026-07-28 requests: a server per request, from the same factory as the 2025-era sessions. */
  private readonly modern: McpHttpHandler;
  /** Stops telling 2026-07-28 subscriptions that the tools changed (a registry's provider only). */
  private readonly unwatch: (() => void) | undefined;
  private readonly provider: ServedProvider;

  constructor(private readonly options: EndpointOptions) {
    this.provider = servedProvider(options.provider);
    this.table = new SessionTable(options.sessions, options.log);
    const { log } = options;
    this.modern = createMcpHandler(() => this.server(), {
      legacy: "reject",
      onerror: (error) => log(sdkErrorLine(error)),
    });
    // 2026-07-28 clients holding a subscriptions/listen stream are told when the registry publishes (the SDK's
    // listen router); 2025 sessions are told by their own Server (mcp.ts).
    this.unwatch = this.provider.changing()
      ? this.provider.onListChanged(() => this.modern.notify.toolsChanged())
      : undefined;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Serves one request; a POST's body was read and parsed by the caller (it needs it to tell initialize apart).
   * `principal` is who endpoint auth says made the request: a session answers only the principal that opened it (a
   * leaked session id is no use with another caller's token), and to anyone else it does not exist.
   */
  async handle({ req, res, body, caller }: EndpointRequest): Promise<void> {
    // A caller no profile admits is refused at the door, every request, saying why (the handlers refuse it too).
    const refused = this.profileRefusal(caller);
    if (refused) return sendRpcError({ res, status: 403, code: PROFILE_REFUSED, message: refused });
    const request = toWebRequest({ req, res });
    const principal = caller?.principal;
    // The verified caller goes with each request, in either era, to the handlers (caller.ts): profiles, per-user
    // credentials and approval states are its own.
    const auth = caller ? { authInfo: callerAuthInfo(caller) } : {};
    if (!(await isLegacyRequest(request, body))) {
      const response = await this.modern.fetch(request, { parsedBody: body, ...auth });
      return sendWebResponse({ response, res });
    }
    if (this.options.stateless) return this.handleStateless({ req, res, body, request, auth });
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || session.slot.owner !== principal) {
        return sendRpcError({ res, status: 404, code: SESSION_NOT_FOUND, message: "Session not found" });
      }
      this.holdOpen({ slot: session.slot, res });
      const response = await session.transport.handleRequest(request, { parsedBody: body, ...auth });
      return sendWebResponse({ response, res });
    }
    if (req.method === "POST" && isInitializeRequest(body))
      return this.startSession({ req, res, body, request, auth, ...(caller ? { caller } : {}) });
    sendRpcError({ res, status: 400, code: SERVER_ERROR, message: "Bad Request: Mcp-Session-Id header is required" });
  }

  /** Why the server's profiles refuse this caller; undefined when it has one (or there are no profiles). */
  private profileRefusal(caller: Caller | undefined): string | undefined {
    try {
      this.provider.forCaller(caller);
      return undefined;
    } catch (error) {
      if (error instanceof ProfileRefused) return error.message;
      throw error;
    }
  }

  /** Closes every session and in-flight stateless transport, and the 2026-07-28 requests in flight. */
  async closeAll(): Promise<void> {
    this.unwatch?.();
    await Promise.allSettled([...[...this.open].map((transport) => transport.close()), this.modern.close()]);
  }

  private async startSession({ res, body, caller, request, auth }: EndpointRequest & Forwarded) {
    const admission = this.table.admit(caller?.principal);
    if ("refused" in admission) {
      const headers = { "retry-after": String(admission.retryAfterSeconds) };
      return sendRpcError({ res, status: 503, code: SERVER_ERROR, message: admission.refused, headers });
    }
    const { slot } = admission;
    const transport: Transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, slot });
      },
    });
    // Set before connect(): the SDK's Server chains its own onclose after ours. DELETE and expiry end up here too.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
      this.open.delete(transport);
      this.table.release(slot);
    };
    this.open.add(transport);
    const server = this.server(transport);
    // Closing the server closes its transport; both become garbage once the maps above let go of them.
    slot.close = () => server.close();
    this.holdOpen({ slot, res });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body, ...auth });
    // Refused before a session began (a bad Accept header, say): nothing will ever reach this pair again.
    if (transport.sessionId === undefined) await server.close();
    await sendWebResponse({ response, res });
  }

  /** The session cannot expire while this request's response is open (a call in flight, a notification stream). */
  private holdOpen({ slot, res }: { slot: Slot; res: ServerResponse }): void {
    this.table.begin(slot);
    res.once("close", () => this.table.end(slot));
  }

  private async handleStateless({ req, res, body, request, auth }: EndpointRequest & Forwarded) {
    // No session means no later request can reach this server: GET (a notification stream) and DELETE mean nothing.
    if (req.method !== "POST") {
      const message = "Method not allowed: a stateless server takes POST only";
      return sendRpcError({ res, status: 405, code: SERVER_ERROR, message, headers: { allow: "POST" } });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = this.server(transport);
    this.open.add(transport);
    // When the response ends (answered, or the client went away) the pair goes; a call still running is aborted.
    res.on("close", () => {
      this.open.delete(transport);
      void server.close();
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body, ...auth });
    await sendWebResponse({ response, res });
  }

  private server(transport?: Transport) {
    const { name, version, instructions, calls, log } = this.options;
    const { provider } = this;
    // A cancelled request gets no answer from the SDK: end its response stream, or it stays open for the session.
    const onCancelled = transport ? (id: string | number) => transport.closeSSEStream(id) : undefined;
    const server = createMcpServer({
      provider,
      name,
      version,
      calls,
      log,
      ...(onCancelled ? { onCancelled } : {}),
      ...(instructions ? { instructions } : {}),
    });
    server.onerror = (error) => log(sdkErrorLine(error));
    return server;
  }
}
