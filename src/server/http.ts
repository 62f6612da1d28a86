// MCP over streamable HTTP on plain node:http: `/mcp` for the protocol, `/healthz` beside it. The SDK's own
// Host/Origin options are deprecated and its middleware is express-only, so the guard runs here, before the SDK.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { type AuthConfig, createEndpointAuth } from "./auth.js";
import { BodyBudget, DEFAULT_REQUEST_LIMITS, readBody, type RequestLimits, timeoutOptions } from "./bodies.js";
import { CallTracker } from "./calls.js";
import { McpEndpoint, sendRpcError } from "./endpoint.js";
import { bracketed, RequestGuard } from "./guard.js";
import { type AddressOptionNames, checkExposure, listen } from "./listen.js";
import { boundedLog } from "./log-lines.js";
import type { ServerIdentity } from "./mcp.js";
import type { SessionLimits } from "./sessions.js";

export interface HttpOptions extends ServerIdentity {
  host?: string;
  /** 0 picks a free port (see the handle's `port`). */
  port?: number;
  stateless?: boolean;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** How long `close()` lets in-flight calls finish before aborting them (ms). */
  graceMs?: number;
  maxBodyBytes?: number;
  /**
   * Who may use the MCP endpoint: static bearer tokens or OAuth access tokens (see AuthConfig). Checked on every
   * request to `/mcp`; `/healthz` and the protected-resource metadata stay public. Default: no endpoint auth.
   */
  auth?: AuthConfig;
  /**
   * Serve a non-loopback address without endpoint auth (refused otherwise: the tools call the API with this
   * server's credentials). Warns on every start.
   */
  allowUnauthenticated?: boolean;
  /** Idle expiry and caps of stateful sessions (see SessionLimits for the defaults). */
  sessions?: SessionLimits;
  /** Time to receive a request, and bytes held by bodies still arriving (see RequestLimits for the defaults). */
  requests?: RequestLimits;
  /** How the user sets the port and the host, named when they cannot be used. Default `--port`, `--host`. */
  optionNames?: AddressOptionNames;
  log?: (line: string) => void;
}

export interface HttpHandle {
  /** `http://<host>:<port>/mcp` */
  url: string;
  port: number;
  /** Stops accepting, lets in-flight calls finish up to the grace period, aborts the rest, closes every session. */
  close(): Promise<void>;
  /** Sessions open now (stateful mode): each holds a transport and an SDK server until it ends or expires. */
  openSessions(): number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** After the grace period: how long aborted calls and their answers get to go out before connections are cut. */
const FLUSH_MS = 1_000;

export async function serveHttp(options: HttpOptions): Promise<HttpHandle> {
  const { host = "127.0.0.1", port = 3000, graceMs = 10_000, maxBodyBytes = MAX_BODY_BYTES } = options;
  // Every line bounded, refusals summarised past the first few (log-lines.ts): clients decide nothing of its size.
  const log = boundedLog(options.log ?? ((line: string) => process.stderr.write(`${line}\n`)));
  checkExposure({ host, authenticated: options.auth !== undefined, allowUnauthenticated: options.allowUnauthenticated === true, log });
  // Built before listening: a missing token variable or a bad auth config stops the start, not the first request.
  const auth = options.auth ? createEndpointAuth(options.auth, { log, endpointPath: "/mcp" }) : undefined;
  const calls = new CallTracker();
  const limits = { ...DEFAULT_REQUEST_LIMITS, ...options.requests };
  const budget = new BodyBudget(limits);
  const endpoint = new McpEndpoint({ ...options, stateless: options.stateless ?? false, calls, log });
  /** POST responses still open: they carry the answers of the calls a shutdown waits for. */
  const posts = new Set<ServerResponse>();
  let guard: RequestGuard | undefined;
  let closing: Promise<void> | undefined;

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
      return;
    }
    if (path !== undefined && auth?.servePublic({ req, res, path })) return;
    if (path !== "/mcp") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
      return;
    }
    const refusal = guard?.checkHost(req.headers.host) ?? guard?.checkOrigin(req.headers.origin);
    if (refusal) {
      log(`refused: 403 ${refusal}`);
      return sendRpcError({ res, status: 403, code: -32000, message: refusal });
    }
    // Before the body is read: a caller without a valid token costs no more than its headers.
    let principal: string | undefined;
    if (auth) {
      const verdict = await auth.authenticate(req);
      if (!verdict.ok) {
        log(`refused: ${verdict.status} ${verdict.reason}`);
        const headers = { ...verdict.headers, ...(req.method === "POST" ? { connection: "close" } : {}) };
        return sendRpcError({ res, status: verdict.status, code: -32000, message: verdict.message, headers });
      }
      principal = verdict.principal.key;
    }
    if (req.method !== "GET" && req.method !== "POST" && req.method !== "DELETE") {
      const headers = { allow: "GET, POST, DELETE" };
      return sendRpcError({ res, status: 405, code: -32000, message: "Method not allowed", headers });
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readBody({ req, limit: maxBodyBytes, budget, owner: principal });
      // Gone before its body came: nobody to answer (on a timeout Node answered 408).
      if ("aborted" in read) return;
      // Refused: the rest of the body is left unread, so this connection cannot carry another request.
      if ("tooLarge" in read) {
        const message = `Payload Too Large: Request body must not exceed ${maxBodyBytes} bytes`;
        return sendRpcError({ res, status: 413, code: -32000, message, headers: { connection: "close" } });
      }
      if ("overBudget" in read) {
        log(`refused: 503 a request body past ${read.overBudget}; connection closed`);
        // By then every body now arriving is complete or timed out.
        const headers = { connection: "close", "retry-after": String(Math.ceil(limits.requestTimeoutMs / 1000)) };
        return sendRpcError({ res, status: 503, code: -32000, message: `Server busy: too many request bodies arriving (${read.overBudget}); retry later`, headers });
      }
      try {
        body = JSON.parse(read.text);
      } catch {
        return sendRpcError({ res, status: 400, code: -32700, message: "Parse error: Invalid JSON" });
      }
    }
    // While shutting down, only notifications and responses (a cancellation, say) still reach the sessions.
    if (closing && (req.method !== "POST" || [body].flat().some(isJSONRPCRequest))) {
      const headers = { connection: "close", "retry-after": "1" };
      return sendRpcError({ res, status: 503, code: -32000, message: "Server shutting down", headers });
    }
    if (req.method === "POST") {
      posts.add(res);
      res.on("close", () => posts.delete(res));
    }
    await endpoint.handle({ req, res, body, ...(principal !== undefined ? { principal } : {}) });
  };

  const server = createServer(timeoutOptions(limits), (req, res) => {
    route(req, res).catch((error: unknown) => {
      log(`http: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) sendRpcError({ res, status: 500, code: -32603, message: "Internal error" });
      else res.destroy();
    });
  });
  // Node answers a request that does not arrive in time with 408 and closes its connection; said here, once.
  server.on("connection", (socket) => {
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ERR_HTTP_REQUEST_TIMEOUT") return;
      const { headersTimeout, requestTimeout } = timeoutOptions(limits);
      const within = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
      log(`refused: 408 a request not received in time (headers within ${within(headersTimeout)}, all of it within ${within(requestTimeout)}); connection closed`);
    });
  });
  await listen({ server, host, port, names: options.optionNames ?? { port: "--port", host: "--host" } });
  const bound = (server.address() as AddressInfo).port;
  const { allowedHosts, allowedOrigins } = options;
  auth?.warmUp();
  guard = new RequestGuard({
    host,
    port: bound,
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(allowedOrigins ? { allowedOrigins } : {}),
  });

  const close = (): Promise<void> => {
    closing ??= (async () => {
      let stopped = false;
      const allClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      void allClosed.then(() => {
        stopped = true;
      });
      server.closeIdleConnections();
      if (!(await calls.drain(graceMs))) {
        calls.abort();
        await calls.drain(FLUSH_MS);
      }
      await until({ done: () => posts.size === 0, ms: FLUSH_MS });
      await endpoint.closeAll();
      // Keep-alive connections that carried a request meanwhile, then whatever is left after a last chance.
      server.closeIdleConnections();
      await until({ done: () => stopped, ms: FLUSH_MS });
      server.closeAllConnections();
      await allClosed;
      log.flush();
    })();
    return closing;
  };

  return { url: `http://${bracketed(host)}:${bound}/mcp`, port: bound, close, openSessions: () => endpoint.sessionCount };
}

/** Polls `done` until it holds or `ms` pass. */
async function until({ done, ms }: { done: () => boolean; ms: number }): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
