// A load balancer for tests: an HTTP proxy on 127.0.0.1 sending each request to the next of N upstreams in turn,
// response bodies streamed (a notification stream or an SSE answer passes through as it is written), every header
// passed on as sent but Host, which names the upstream (as nginx's `proxy_pass` does by default: a replica on
// loopback accepts only its own loopback Host, against DNS rebinding). In sticky mode it learns each session from
// the `Mcp-Session-Id` header of the response that opened it and sends that session's later requests to the same
// upstream, as HAProxy's `stick store-response res.hdr(mcp-session-id)` does; requests without a known session go
// round robin. A dead upstream is taken out as HAProxy does it: by a health check (`healthCheck`: GET a path every
// interval; two failures in a row take it out, a success brings it back), and at once when a connection to it is
// refused, the request then going to the next upstream (HAProxy's `retries` with `option redispatch`: safe even for
// a POST, since nothing reached the dead one). A request already sent when its upstream dies is not resent: the
// client gets 502 (or its open stream is cut). A test may pin one request to one upstream by its index in a header
// it names (`pinHeader`), to make a scenario cross replicas on purpose. Used by the replica tests (three `serve
// --transport http` processes behind it).

import { Agent, createServer, get, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream";

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`; append the endpoint's path (`/mcp`). */
  url: string;
  /** Requests sent to each upstream, by the upstream's index (a request refused at connect counts where it went). */
  counts: number[];
  /** Upstreams taken out by a failed health check or a refused connection, now. */
  down: ReadonlySet<number>;
  /** A dead upstream gets no more requests (a load balancer's failed health check). */
  disable: (index: number) => void;
  close: () => Promise<void>;
}

/** `upstreams`: origins or URLs; a request keeps its own path and query. */
export async function startRoundRobinProxy({
  upstreams,
  sticky = false,
  healthCheck,
  pinHeader,
  port = 0,
}: {
  upstreams: string[];
  sticky?: boolean;
  healthCheck?: { path: string; intervalMs: number };
  /** A request header naming the upstream (its index) this request must go to, taken off before it is sent. */
  pinHeader?: string;
  /** The port to listen on (0: any free one). */
  port?: number;
}): Promise<RoundRobinProxy> {
  const origins = upstreams.map((u) => new URL(u));
  const counts = origins.map(() => 0);
  const disabled = new Set<number>();
  const down = new Set<number>();
  const sessions = new Map<string, number>();
  let next = 0;
  // Connections to the upstreams are kept for reuse, but dropped after 1 s idle: a replica (Node) closes an idle one
  // after 5 s, and a request written on a connection it is closing gets ECONNRESET, which cannot be told from a
  // replica dying with the request in hand, so it is not retried. Node's default agent drops them after 4 s (the
  // server's hint less 1 s), which a test thread stalled over a second under load missed (2 calls in 10,000).
  const agent = new Agent({ keepAlive: true, timeout: 1_000 });

  const pick = (req: IncomingMessage): number => {
    const pinned = pinHeader === undefined ? undefined : header(req, pinHeader);
    if (pinned !== undefined) return origins[Number(pinned)] ? Number(pinned) : -1;
    const session = sticky ? header(req, "mcp-session-id") : undefined;
    const held = session === undefined ? undefined : sessions.get(session);
    if (held !== undefined) return held;
    for (let tries = 0; tries < origins.length; tries++) {
      const index = next++ % origins.length;
      if (!disabled.has(index) && !down.has(index)) return index;
    }
    return -1;
  };

  const onward = (req: IncomingMessage, host: string) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host };
    if (pinHeader !== undefined) delete headers[pinHeader];
    return headers;
  };

  // The request body is read whole first (MCP messages are small), so that it can be sent again elsewhere.
  const send = (req: IncomingMessage, body: Buffer, res: ServerResponse, tries: number): void => {
    const index = pick(req);
    const origin = origins[index];
    if (!origin) {
      res.writeHead(503, { "content-type": "text/plain" }).end("no upstream available");
      return;
    }
    counts[index] = (counts[index] ?? 0) + 1;
    const upstream = request(
      {
        host: origin.hostname,
        port: origin.port,
        method: req.method,
        path: req.url,
        headers: onward(req, origin.host),
        agent,
      },
      (answer) => {
        const session = header(answer, "mcp-session-id");
        if (sticky && session !== undefined) sessions.set(session, index);
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        // Each chunk goes on as it arrives: Node writes a streamed (chunked) response's chunks at once. An answer cut
        // short (its replica died mid-stream) cuts the client's too: the error is on the answer, not the request, and
        // a plain pipe() would leave the client waiting for the rest until its own timeout (60 s in the SDK).
        pipeline(answer, res, (error) => {
          if (error) res.destroy();
        });
      },
    );
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") {
        down.add(index);
        if (tries < origins.length) return send(req, body, res, tries + 1);
      }
      const why = `upstream unreachable (${error.code ?? error.message}${upstream.reusedSocket ? ", on a reused connection" : ""})`;
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(why);
      else res.destroy();
    });
    // The client went away (a cancelled stream): so does the request upstream.
    res.on("close", () => upstream.destroy());
    upstream.end(body);
  };

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => send(req, Buffer.concat(chunks), res, 1));
  };

  // As HAProxy's `check fall 2`: two failed checks in a row take an upstream out (one slow answer on a loaded machine
  // is not a dead replica: with all three out at once, every call got 503); one success brings it back. One check at
  // a time per upstream, so that slow ones do not pile up.
  const failures = origins.map(() => 0);
  const probing = new Set<number>();
  const probe = (index: number, path: string): void => {
    if (probing.has(index)) return;
    probing.add(index);
    let settled = false;
    const done = (healthy: boolean) => {
      if (settled) return;
      settled = true;
      probing.delete(index);
      failures[index] = healthy ? 0 : (failures[index] ?? 0) + 1;
      if (healthy) down.delete(index);
      else if ((failures[index] ?? 0) >= 2) down.add(index);
    };
    const check = get(new URL(path, origins[index]), { timeout: 2_000, agent }, (answer) => {
      answer.resume();
      done(answer.statusCode === 200);
    });
    check.on("timeout", () => check.destroy(new Error("health check timed out")));
    check.on("error", () => done(false));
  };
  const timer = healthCheck
    ? setInterval(() => {
        for (const index of origins.keys()) probe(index, healthCheck.path);
      }, healthCheck.intervalMs)
    : undefined;

  const server: Server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${listening}`,
    counts,
    down,
    disable: (index) => disabled.add(index),
    close: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(timer);
        agent.destroy();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function header(message: IncomingMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
