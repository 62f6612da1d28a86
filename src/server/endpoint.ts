// The `/mcp` endpoint behind the HTTP guard: which SDK transport a request goes to. Stateful: one transport and one
// `Server` per session, found by `Mcp-Session-Id`. Stateless (for replicas behind a load balancer): a fresh pair per
// request, because the SDK refuses to reuse a stateless transport (it would mix up JSON-RPC ids across clients).
// Sessions are bounded (sessions.ts): they expire when idle and are capped, per principal too.

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { CallTracker } from "./calls.js";
import { createMcpServer, type ServerIdentity } from "./mcp.js";
import { type SessionLimits, type Slot, SessionTable } from "./sessions.js";

export interface EndpointOptions extends ServerIdentity {
  stateless: boolean;
  calls: CallTracker;
  log: (line: string) => void;
  sessions?: SessionLimits;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  slot: Slot;
}

/** A request that passed the guard and endpoint auth, with its parsed body (a POST's) and who made it. */
export interface EndpointRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: unknown;
  principal?: string;
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
  private readonly open = new Set<StreamableHTTPServerTransport>();

  constructor(private readonly options: EndpointOptions) {
    this.table = new SessionTable(options.sessions, options.log);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Serves one request; a POST's body was read and parsed by the caller (it needs it to tell initialize apart).
   * `principal` is who endpoint auth says made the request: a session answers only the principal that opened it (a
   * leaked session id is no use with another caller's token), and to anyone else it does not exist.
   */
  async handle({ req, res, body, principal }: EndpointRequest): Promise<void> {
    if (this.options.stateless) return this.handleStateless({ req, res, body });
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || session.slot.owner !== principal) {
        return sendRpcError({ res, status: 404, code: -32001, message: "Session not found" });
      }
      this.holdOpen({ slot: session.slot, res });
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method === "POST" && isInitializeRequest(body)) return this.startSession({ req, res, body, principal });
    sendRpcError({ res, status: 400, code: -32000, message: "Bad Request: Mcp-Session-Id header is required" });
  }

  /** Closes every session and in-flight stateless transport; their servers abort what they still run. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.open].map((transport) => transport.close()));
  }

  private async startSession({ req, res, body, principal }: EndpointRequest) {
    const admission = this.table.admit(principal);
    if ("refused" in admission) {
      const headers = { "retry-after": String(admission.retryAfterSeconds) };
      return sendRpcError({ res, status: 503, code: -32000, message: admission.refused, headers });
    }
    const { slot } = admission;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
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
    await transport.handleRequest(req, res, body);
    // Refused before a session began (a bad Accept header, say): nothing will ever reach this pair again.
    if (transport.sessionId === undefined) await server.close();
  }

  /** The session cannot expire while this request's response is open (a call in flight, a notification stream). */
  private holdOpen({ slot, res }: { slot: Slot; res: ServerResponse }): void {
    this.table.begin(slot);
    res.once("close", () => this.table.end(slot));
  }

  private async handleStateless({ req, res, body }: EndpointRequest) {
    // No session means no later request can reach this server: GET (a notification stream) and DELETE mean nothing.
    if (req.method !== "POST") {
      const message = "Method not allowed: a stateless server takes POST only";
      return sendRpcError({ res, status: 405, code: -32000, message, headers: { allow: "POST" } });
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = this.server(transport);
    this.open.add(transport);
    // When the response ends (answered, or the client went away) the pair goes; a call still running is aborted.
    res.on("close", () => {
      this.open.delete(transport);
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private server(transport: StreamableHTTPServerTransport) {
    const { provider, name, version, instructions, calls, log } = this.options;
    // A cancelled request gets no answer from the SDK: end its response stream, or it stays open for the session.
    const onCancelled = (id: string | number) => transport.closeSSEStream(id);
    const server = createMcpServer({
      provider,
      name,
      version,
      calls,
      log,
      onCancelled,
      ...(instructions ? { instructions } : {}),
    });
    server.onerror = (error) => log(`mcp: ${error.message}`);
    return server;
  }
}
