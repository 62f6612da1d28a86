// What the HTTP server does with a request, step by step: the public routes (`/healthz`, the auth metadata), then for
// the MCP endpoint the Host/Origin guard, endpoint auth, the method, the body and a shutdown under way, each of which
// may answer it; what passes them all goes to the MCP endpoint.

import type { IncomingMessage, ServerResponse } from "node:http";
import { isJSONRPCRequest } from "@modelcontextprotocol/server";
import { messageOf } from "../catalog/errors.js";
import {
  type HttpMount,
  type HttpRoute,
  MAX_FORM_BYTES,
  type ReadBody,
  type RequestBody,
  type RouteAnswer,
  type RouteRequest,
} from "../runtime/http-route.js";
import type { Caller } from "../runtime/types.js";
import type { EndpointAuth } from "./auth-mode.js";
import { type BodyBudget, bodyRefusal, readBody, type RequestLimits } from "./bodies.js";
import { callerOf } from "./caller.js";
import { type EndpointRequest, type McpEndpoint, sendRpcError } from "./endpoint.js";
import type { RequestGuard } from "./guard.js";
import { SERVER_ERROR } from "./rpc-codes.js";

export const MCP_PATH = "/mcp";
const METHODS = new Set(["GET", "POST", "DELETE"]);

export class HttpRoutes {
  /** Set once the server listens: it checks Host against the bound port. */
  guard: RequestGuard | undefined;
  /** Set when a shutdown starts: from then on nothing new is started. */
  closing = false;
  /** POST responses still open: they carry the answers of the calls a shutdown waits for. */
  readonly posts = new Set<ServerResponse>();

  constructor(
    private readonly parts: {
      auth: EndpointAuth | undefined;
      endpoint: McpEndpoint;
      budget: BodyBudget;
      limits: Required<RequestLimits>;
      maxBodyBytes: number;
      log: (line: string) => void;
      /** Routes the engine's parts add (sign-in callback, sign-out). */
      extra: readonly HttpRoute[];
      /** Parts answering every path under their prefix (the console), after the Host check. */
      mounts?: readonly HttpMount[];
    },
  ) {}

  async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
      return;
    }
    if (path !== undefined && this.parts.auth?.servePublic({ req, res, path })) return;
    const extra = this.parts.extra.find((r) => r.path === path && r.method === req.method);
    if (extra) return this.serveExtra({ route: extra, req, res });
    const mount = this.parts.mounts?.find((m) => path === m.prefix || path?.startsWith(`${m.prefix}/`));
    if (mount) return this.serveMount({ mount, req, res });
    if (path !== MCP_PATH) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
      return;
    }
    await this.serveEndpoint(req, res);
  }

  private async serveEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.guarded(req, res)) return;
    // Before the body is read: a caller without a valid token costs no more than its headers.
    const caller = await this.authenticated(req, res);
    if (!caller) return;
    if (!METHODS.has(req.method ?? "")) {
      const headers = { allow: "GET, POST, DELETE" };
      return sendRpcError({ res, status: 405, code: SERVER_ERROR, message: "Method not allowed", headers });
    }
    const principal = caller.caller?.principal;
    const body = req.method === "POST" ? await this.jsonBody({ req, res, principal }) : { json: undefined };
    if (!body) return;
    // While shutting down, only notifications and responses (a cancellation, say) still reach the sessions.
    if (this.closing && (req.method !== "POST" || [body.json].flat().some(isJSONRPCRequest))) {
      const headers = { connection: "close", "retry-after": "1" };
      return sendRpcError({ res, status: 503, code: SERVER_ERROR, message: "Server shutting down", headers });
    }
    if (req.method === "POST") {
      this.posts.add(res);
      res.on("close", () => this.posts.delete(res));
    }
    await this.parts.endpoint.handle({ req, res, body: body.json, ...caller });
  }

  /**
   * A route of the engine's parts. A public one (the sign-in callback a browser is redirected to) is answered as
   * it comes; one for a caller passes the Host/Origin guard and endpoint auth first, as `/mcp` does. Only a form
   * route's body is read, within MAX_FORM_BYTES and the body budget.
   */
  private async serveExtra({
    route,
    req,
    res,
  }: {
    route: HttpRoute;
    req: IncomingMessage;
    res: ServerResponse;
  }): Promise<void> {
    let caller: Caller | undefined;
    if (route.access === "caller") {
      if (!this.guarded(req, res)) return;
      const verified = await this.authenticated(req, res);
      if (!verified) return;
      caller = verified.caller;
    }
    const query = new URL(req.url ?? "/", "http://localhost").searchParams;
    let answer: RouteAnswer;
    const form = route.form ? await this.formBody(req) : undefined;
    if (form && "answer" in form) answer = form.answer;
    else {
      const { origin, "sec-fetch-site": fetchSite } = req.headers;
      const request: RouteRequest = {
        query,
        ...(caller ? { caller } : {}),
        ...(form ? { form: form.fields } : {}),
        ...(typeof origin === "string" ? { origin } : {}),
        ...(typeof fetchSite === "string" ? { fetchSite } : {}),
      };
      try {
        answer = await route.handle(request);
      } catch (error) {
        this.parts.log(`${route.path} failed: ${messageOf(error)}`);
        answer = { status: 500, text: `This request could not be completed: ${messageOf(error)}` };
      }
    }
    // Never cached, never framed: it may say whom a sign-in was for. A page runs no script and posts only here.
    const page = "html" in answer;
    res
      .writeHead(answer.status, {
        "content-type": page ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        // A page's own post must carry its Origin (no-referrer would make it `null`); nothing leaves for elsewhere.
        "referrer-policy": page ? "same-origin" : "no-referrer",
        "content-security-policy": page
          ? "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
          : "default-src 'none'; frame-ancestors 'none'",
        ...(req.method === "POST" ? { connection: "close" } : {}),
      })
      .end("html" in answer ? answer.html : `${answer.text}\n`);
  }

  /** A form route's fields, or the answer that refuses its body (too large, over the budget, not a form). */
  private async formBody(req: IncomingMessage): Promise<{ fields: URLSearchParams } | { answer: RouteAnswer }> {
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded")
      return { answer: { status: 415, text: "This page takes a form (application/x-www-form-urlencoded)." } };
    // A public page's sender has no name yet: its address holds the share, as for the console's login.
    const owner = `address:${req.socket.remoteAddress ?? "unknown"}`;
    const read = await this.body({ req, limit: MAX_FORM_BYTES, owner });
    if (read.outcome === "aborted") return { answer: { status: 400, text: "The form did not arrive whole." } };
    if (read.outcome === "refused") return { answer: { status: read.refused.status, text: read.refused.message } };
    return { fields: new URLSearchParams(read.text) };
  }

  /**
   * A mount's request: the Host check here (a rebound name is refused as at `/mcp`), the rest its own; the Origin
   * rules are its own too (the console refuses cross-site writes, not reads of its login page).
   */
  private async serveMount({ mount, req, res }: { mount: HttpMount; req: IncomingMessage; res: ServerResponse }) {
    const refusal = this.guard?.checkHost(req.headers.host);
    if (refusal) {
      this.parts.log(`refused: 403 ${refusal}`);
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end(`${refusal}\n`);
      return;
    }
    const { auth } = this.parts;
    const verifyBearer = async (): Promise<Caller | undefined> => {
      if (!auth || !req.headers.authorization) return undefined;
      const verdict = await auth.authenticate(req);
      return verdict.ok ? callerOf({ req, principal: verdict.principal, token: verdict.token }) : undefined;
    };
    const body: ReadBody = ({ limit, owner }) => this.body({ req, limit, owner });
    await mount.handle({ req, res, verifyBearer, readBody: body, log: this.parts.log });
  }

  /** False once a request from a host or origin this server does not answer is refused (DNS rebinding). */
  private guarded(req: IncomingMessage, res: ServerResponse): boolean {
    const refusal = this.guard?.checkHost(req.headers.host) ?? this.guard?.checkOrigin(req.headers.origin);
    if (!refusal) return true;
    this.parts.log(`refused: 403 ${refusal}`);
    sendRpcError({ res, status: 403, code: SERVER_ERROR, message: refusal });
    return false;
  }

  /** Who the caller is (no one in particular without endpoint auth), or undefined once refused. */
  private async authenticated(req: IncomingMessage, res: ServerResponse): Promise<{ caller?: Caller } | undefined> {
    const { auth, log } = this.parts;
    if (!auth) return {};
    const verdict = await auth.authenticate(req);
    if (verdict.ok) return { caller: callerOf({ req, principal: verdict.principal, token: verdict.token }) };
    log(`refused: ${verdict.status} ${verdict.reason}`);
    // A POST's body is left unread: its connection cannot carry another request.
    const headers = { ...verdict.headers, ...(req.method === "POST" ? { connection: "close" } : {}) };
    sendRpcError({ res, status: verdict.status, code: SERVER_ERROR, message: verdict.message, headers });
    return undefined;
  }

  /** A POST's body, read within its bounds and parsed; undefined once refused (or when the client went away). */
  private async jsonBody({
    req,
    res,
    principal,
  }: Omit<EndpointRequest, "body" | "caller"> & { principal: string | undefined }): Promise<
    { json: unknown } | undefined
  > {
    const { maxBodyBytes } = this.parts;
    const read = await this.body({ req, limit: maxBodyBytes, owner: principal });
    // Gone before its body came: nobody to answer (on a timeout Node answered 408).
    if (read.outcome === "aborted") return undefined;
    if (read.outcome === "refused") return void sendRpcError({ res, code: SERVER_ERROR, ...read.refused });
    try {
      return { json: JSON.parse(read.text) as unknown };
    } catch {
      return void sendRpcError({ res, status: 400, code: -32700, message: "Parse error: Invalid JSON" });
    }
  }

  /** A body read within `limit` and the server's budget (its bytes held as `owner`'s), or how to refuse it. */
  private async body({
    req,
    limit,
    owner,
  }: {
    req: IncomingMessage;
    limit: number;
    owner: string | undefined;
  }): Promise<RequestBody> {
    const { budget, limits, log } = this.parts;
    const read = await readBody({ req, limit, budget, owner });
    if (read.outcome === "read" || read.outcome === "aborted") return read;
    if (read.outcome === "overBudget") log(`refused: 503 a request body past ${read.limit}; connection closed`);
    return { outcome: "refused", refused: bodyRefusal({ read, limit, limits }) };
  }
}
