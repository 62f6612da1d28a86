// The fuzzer's two observation points: a recording upstream on 127.0.0.1 that answers every request with 200 {}
// (and sees exactly what went over the wire), and an undici Agent that records every request the engine hands to
// undici before undici checks or sends it (so a request undici refuses is seen too, and where it was going).

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type Dispatcher } from "undici";

export interface Received {
  /** The call that was in flight when the request arrived (set by the test before each call). */
  call: number;
  method: string;
  /** The request target exactly as received. */
  url: string;
  /** Name/value pairs as received, names in their original case. */
  rawHeaders: string[];
  headers: IncomingMessage["headers"];
  bodyBytes: number;
}

export interface Dispatched {
  call: number;
  origin: string;
  path: string;
  method: string;
  headers: Array<[string, string]>;
}

export interface Upstream {
  origin: string;
  host: string;
  basePath: string;
  baseUrl: string;
  received: Received[];
  /** Requests the HTTP parser refused (a smuggled or malformed request would land here). */
  clientErrors: Array<{ call: number; code: string; message: string }>;
  /** Set before each call, so every arriving request is attributed to it. */
  currentCall: number;
  close(): Promise<void>;
}

export async function startUpstream({ basePath = "/base/v1" }: { basePath?: string } = {}): Promise<Upstream> {
  const state = { currentCall: -1 };
  const received: Received[] = [];
  const clientErrors: Upstream["clientErrors"] = [];
  // Header limits far above Node's 16 KB default: a huge argument must arrive (and be recorded), not bounce.
  const server: Server = createServer({ maxHeaderSize: 64 * 1024 * 1024, requestTimeout: 0 }, (req, res) => {
    const record: Received = {
      call: state.currentCall,
      method: req.method ?? "",
      url: req.url ?? "",
      rawHeaders: req.rawHeaders,
      headers: req.headers,
      bodyBytes: 0,
    };
    received.push(record);
    req.on("data", (chunk: Buffer) => {
      record.bodyBytes += chunk.length;
    });
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "2" }).end("{}");
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    clientErrors.push({ call: state.currentCall, code: error.code ?? "", message: error.message });
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  const upstream: Upstream = {
    origin: `http://${host}`,
    host,
    basePath,
    baseUrl: `http://${host}${basePath}`,
    received,
    clientErrors,
    get currentCall() {
      return state.currentCall;
    },
    set currentCall(call: number) {
      state.currentCall = call;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return upstream;
}

/** An Agent that records each request it is given before undici validates and sends it. */
export class RecordingAgent extends Agent {
  readonly dispatched: Dispatched[] = [];
  currentCall = -1;

  override dispatch(options: Agent.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.dispatched.push({
      call: this.currentCall,
      origin: String(options.origin ?? ""),
      path: options.path,
      method: options.method,
      headers: headerPairs(options.headers),
    });
    return super.dispatch(options, handler);
  }
}

function headerPairs(headers: Dispatcher.DispatchOptions["headers"]): Array<[string, string]> {
  if (headers === null || headers === undefined) return [];
  if (Array.isArray(headers)) {
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i + 1 < headers.length; i += 2) pairs.push([String(headers[i]), String(headers[i + 1])]);
    return pairs;
  }
  const entries: Iterable<[string, unknown]> =
    Symbol.iterator in headers ? (headers as Iterable<[string, unknown]>) : Object.entries(headers);
  return [...entries].flatMap(([name, value]) =>
    Array.isArray(value)
      ? value.map((v) => [name, String(v)] as [string, string])
      : [[name, String(value)] as [string, string]],
  );
}
