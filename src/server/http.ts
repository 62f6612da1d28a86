// MCP over streamable HTTP on plain node:http: `/mcp` for the protocol, `/healthz` beside it. The SDK's own
// Host/Origin options are deprecated and its middleware is express-only, so the guard runs here, before the SDK.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { stackOf } from "../catalog/errors.js";
import type { AuthConfig } from "./auth-config.js";
import { createEndpointAuth } from "./auth.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../runtime/options.js";
import { BodyBudget, DEFAULT_REQUEST_LIMITS, type RequestLimits, timeoutOptions } from "./bodies.js";
import { CallTracker } from "./calls.js";
import { McpEndpoint, sendRpcError } from "./endpoint.js";
import { bracketed, RequestGuard } from "./guard.js";
import type { HttpMount, HttpRoute } from "../runtime/http-route.js";
import { HttpRoutes, MCP_PATH } from "./http-routes.js";
import { shutDown } from "./http-shutdown.js";
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
  /** Routes beside the MCP endpoint (the per-user sign-in's callback and sign-out, runtime/sign-in/sign-in-callback.ts). */
  routes?: readonly HttpRoute[];
  /** Parts with their own pages under a path prefix (the console, served by `openapi-mcp serve --console`). */
  mounts?: readonly HttpMount[];
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

export async function serveHttp(options: HttpOptions): Promise<HttpHandle> {
  const { host = DEFAULT_HOST, port = DEFAULT_PORT, graceMs = 10_000, maxBodyBytes = MAX_BODY_BYTES } = options;
  // Every line bounded, refusals summarised past the first few (log-lines.ts): clients decide nothing of its size.
  const log = boundedLog(options.log ?? ((line: string) => process.stderr.write(`${line}\n`)));
  const authenticated = options.auth !== undefined;
  checkExposure({ host, authenticated, allowUnauthenticated: options.allowUnauthenticated === true, log });
  // Built before listening: a missing token variable or a bad auth config stops the start, not the first request.
  const auth = options.auth ? createEndpointAuth(options.auth, { log, endpointPath: MCP_PATH }) : undefined;
  const calls = new CallTracker();
  const limits = { ...DEFAULT_REQUEST_LIMITS, ...options.requests };
  const endpoint = new McpEndpoint({ ...options, stateless: options.stateless ?? false, calls, log });
  const routes = new HttpRoutes({
    auth,
    endpoint,
    budget: new BodyBudget(limits),
    limits,
    maxBodyBytes,
    log,
    extra: options.routes ?? [],
    ...(options.mounts ? { mounts: options.mounts } : {}),
  });

  const server = createServer(timeoutOptions(limits), (req, res) => {
    routes.route(req, res).catch((error: unknown) => {
      log(`http: ${stackOf(error)}`);
      if (!res.headersSent) sendRpcError({ res, status: 500, code: -32603, message: "Internal error" });
      else res.destroy();
    });
  });
  logRequestTimeouts({ server, limits, log });
  await listen({ server, host, port, names: options.optionNames ?? { port: "--port", host: "--host" } });
  const bound = (server.address() as AddressInfo).port;
  const { allowedHosts, allowedOrigins } = options;
  auth?.warmUp();
  routes.guard = new RequestGuard({
    host,
    port: bound,
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(allowedOrigins ? { allowedOrigins } : {}),
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    routes.closing = true;
    if (!closing) for (const mount of options.mounts ?? []) mount.close?.();
    closing ??= shutDown({ server, calls, posts: routes.posts, endpoint, graceMs }).then(() => log.flush());
    return closing;
  };
  const url = `http://${bracketed(host)}:${bound}${MCP_PATH}`;
  return { url, port: bound, close, openSessions: () => endpoint.sessionCount };
}

/** Node answers a request that does not arrive in time with 408 and closes its connection; said here, once. */
function logRequestTimeouts({
  server,
  limits,
  log,
}: {
  server: Server;
  limits: Required<RequestLimits>;
  log: (line: string) => void;
}): void {
  const { headersTimeout, requestTimeout } = timeoutOptions(limits);
  const within = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
  const line =
    `refused: 408 a request not received in time (headers within ${within(headersTimeout)}, ` +
    `all of it within ${within(requestTimeout)}); connection closed`;
  server.on("connection", (socket) => {
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") log(line);
    });
  });
}
