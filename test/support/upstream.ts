// A real, scriptable upstream API on 127.0.0.1 (plain node:http, or https with a certificate the test made) that
// records every request exactly as it arrived (method, raw path and query, headers, body bytes, whether the client
// went away before the answer was complete) and answers as each test scripts it: status, headers, body, delays,
// connection resets, stalled bodies, huge bodies, redirects. Never anything beyond loopback.

import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  method: string;
  /** `req.url` exactly as received: raw path and query, no decoding or normalizing. */
  url: string;
  /** The raw path, before any `?`. */
  path: string;
  /** The raw query string without the `?`; "" when there is none. */
  query: string;
  /** Header names lower-cased (Node joins repeated headers). */
  headers: IncomingHttpHeaders;
  /** Names and values as they came, in order. */
  rawHeaders: string[];
  body: Buffer;
  /** The client's port: requests with the same one came over the same connection. */
  remotePort: number;
  /** True once the connection closed before the response was complete (the client gave up or was cancelled). */
  abandoned: boolean;
  /** Settles when the response is complete or its connection closed, whichever comes first. */
  settled: Promise<void>;
}

export interface ReplyContext {
  req: IncomingMessage;
  res: ServerResponse;
  recorded: RecordedRequest;
  upstream: Upstream;
}

/** How the upstream answers one request. */
export type Reply = (context: ReplyContext) => void | Promise<void>;

interface Route {
  method: string;
  path: string | RegExp;
  replies: Reply[];
  served: number;
}

export interface UpstreamOptions {
  /** Serve https with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export class Upstream {
  /** `http://127.0.0.1:<port>` (or https), no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request in the order it arrived (bodies complete). */
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private readonly sockets = new Set<Socket>();
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    scheme: "http" | "https",
  ) {
    this.port = (server.address() as AddressInfo).port;
    this.url = `${scheme}://127.0.0.1:${this.port}`;
  }

  static async start(options: UpstreamOptions = {}): Promise<Upstream> {
    let upstream: Upstream | undefined;
    const handler = (req: IncomingMessage, res: ServerResponse) => upstream!.handle(req, res);
    const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    upstream = new Upstream(server, options.tls ? "https" : "http");
    server.on("connection", (socket: Socket) => {
      upstream!.sockets.add(socket);
      socket.on("close", () => upstream!.sockets.delete(socket));
    });
    // TLS connections are announced as secureConnection; the raw socket is tracked through 'connection' anyway.
    return upstream;
  }

  /**
   * Answers `method path` (path: the raw path without the query, or a RegExp tested on it) with the replies in
   * turn: the first request gets the first, and so on; the last one repeats.
   */
  on(method: string, path: string | RegExp, ...replies: Reply[]): this {
    if (replies.length === 0) throw new Error("on(): give at least one reply");
    this.routes.unshift({ method: method.toUpperCase(), path, replies, served: 0 });
    return this;
  }

  /** Forgets routes and recorded requests (between tests). */
  reset(): void {
    this.routes.length = 0;
    this.requests.length = 0;
  }

  /** Requests to one raw path (without the query). */
  to(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The only request recorded; fails when there is not exactly one. */
  only(): RecordedRequest {
    if (this.requests.length !== 1) {
      throw new Error(
        `expected exactly one request upstream, got ${this.requests.length}: ${this.requests.map((r) => `${r.method} ${r.url}`).join(", ")}`,
      );
    }
    return this.requests[0]!;
  }

  /** Resolves once `count` requests have arrived. */
  async received(count: number, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.requests.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} requests upstream, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Connections currently open to this server. */
  get openConnections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = req.url ?? "/";
      const at = url.indexOf("?");
      let markSettled = (): void => {};
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url,
        path: at === -1 ? url : url.slice(0, at),
        query: at === -1 ? "" : url.slice(at + 1),
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
        remotePort: req.socket.remotePort ?? 0,
        abandoned: false,
        settled: new Promise<void>((resolve) => {
          markSettled = resolve;
        }),
      };
      res.on("close", () => {
        if (!res.writableFinished) recorded.abandoned = true;
        markSettled();
      });
      this.requests.push(recorded);
      for (const wake of this.waiters.splice(0)) wake();
      const route = this.routes.find(
        (r) =>
          r.method === recorded.method &&
          (typeof r.path === "string" ? r.path === recorded.path : r.path.test(recorded.path)),
      );
      if (!route) {
        json(
          { error: `no route for ${recorded.method} ${recorded.path}` },
          { status: 599 },
        )({ req, res, recorded, upstream: this });
        return;
      }
      const reply = route.replies[Math.min(route.served, route.replies.length - 1)]!;
      route.served++;
      Promise.resolve(reply({ req, res, recorded, upstream: this })).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(598, { "content-type": "text/plain" });
        res.end(`the test's reply failed: ${String(error)}`);
      });
    });
  }
}

// ---------------------------------------------------------------------------------------------- replies

export interface ReplyOptions {
  status?: number;
  headers?: Record<string, string | number | string[]>;
}

/** Bytes with a content type (none when `contentType` is undefined). */
export function bytes(
  body: Buffer | Uint8Array | string,
  contentType: string | undefined,
  { status = 200, headers = {} }: ReplyOptions = {},
): Reply {
  const buffer = typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
  return ({ res }) => {
    res.writeHead(status, {
      ...(contentType === undefined ? {} : { "content-type": contentType }),
      "content-length": buffer.length,
      ...headers,
    });
    res.end(buffer);
  };
}

export function json(
  value: unknown,
  { contentType = "application/json", ...options }: ReplyOptions & { contentType?: string } = {},
): Reply {
  return bytes(JSON.stringify(value), contentType, options);
}

export function text(
  body: string,
  { contentType = "text/plain; charset=utf-8", ...options }: ReplyOptions & { contentType?: string } = {},
): Reply {
  return bytes(body, contentType, options);
}

/** A status with no body (204, 503 …). */
export function status(code: number, headers: Record<string, string> = {}): Reply {
  return ({ res }) => {
    res.writeHead(code, code === 204 || code === 304 ? headers : { "content-length": 0, ...headers });
    res.end();
  };
}

export function redirect(code: number, location: string): Reply {
  return ({ res }) => {
    res.writeHead(code, { location, "content-length": 0 });
    res.end();
  };
}

/** The same reply, after `ms` (skipped if the client goes away meanwhile). */
export function delayed(ms: number, reply: Reply): Reply {
  return (context) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        if (!context.res.destroyed) void Promise.resolve(reply(context)).finally(resolve);
        else resolve();
      }, ms);
      context.res.on("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
}

/** Never answers: the request stays open until the client gives up (or the server closes). */
export function hang(): Reply {
  return () => {};
}

/**
 * Resets the connection (TCP RST): at once, or after the status line, headers and the first bytes of a body that
 * claims to be longer.
 */
export function reset({
  after,
}: {
  after?: { contentType: string; partial: string; claimedLength?: number };
} = {}): Reply {
  return ({ res, req }) => {
    const socket = req.socket;
    if (!after) {
      socket.resetAndDestroy();
      return;
    }
    res.writeHead(200, {
      "content-type": after.contentType,
      "content-length": after.claimedLength ?? after.partial.length * 10,
    });
    res.write(after.partial, () => {
      // Let the bytes leave before the reset, so the client has started reading the body.
      setTimeout(() => socket.resetAndDestroy(), 5);
    });
  };
}

/** Sends the status line, headers and part of the body, then nothing more: the body never completes. */
export function stall({
  contentType = "application/json",
  partial = '{"items":[',
  claimedLength = 1_000,
}: {
  contentType?: string;
  partial?: string;
  claimedLength?: number;
} = {}): Reply {
  return ({ res }) => {
    res.writeHead(200, { "content-type": contentType, "content-length": claimedLength });
    res.write(partial);
  };
}

/**
 * A body of `size` bytes streamed in chunks (with back-pressure, no length announced unless `declareLength`),
 * repeating `fill`; it stops early when the client closes the connection. `sent()` tells how far it got.
 */
export function huge({
  size,
  contentType,
  fill = "x",
  prefix = "",
  chunkBytes = 64 * 1024,
  status: code = 200,
  declareLength = false,
}: {
  size: number;
  contentType: string;
  fill?: string;
  prefix?: string;
  chunkBytes?: number;
  status?: number;
  declareLength?: boolean;
}): Reply & { sent(): number } {
  let sent = 0;
  const reply: Reply = ({ res }) => {
    sent = 0;
    res.writeHead(code, { "content-type": contentType, ...(declareLength ? { "content-length": size } : {}) });
    const chunk = Buffer.from(fill.repeat(Math.ceil(chunkBytes / fill.length)).slice(0, chunkBytes));
    const head = Buffer.from(prefix);
    const pump = (): void => {
      while (sent < size && !res.destroyed) {
        let piece = sent === 0 && head.length > 0 ? Buffer.concat([head, chunk]) : chunk;
        if (sent + piece.length > size) piece = piece.subarray(0, size - sent);
        sent += piece.length;
        if (!res.write(piece)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };
  return Object.assign(reply, { sent: () => sent });
}
