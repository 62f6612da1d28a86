// A loopback upstream API in a worker thread of its own, which stamps each request's arrival the moment its body is
// read. An upstream inside the test's own thread stamps a request only when that thread gets to it, and a thread that
// also runs 50 MCP clients and a balancer on a loaded 2-core machine gets to it up to hundreds of milliseconds late,
// in bursts: requests that arrived a second apart look simultaneous (measured: 11 calls "within 159 ms" under a
// limit of 10 per second that held). Declared routes are answered in the worker (status, JSON body, delay); any
// other request is forwarded to `fallback` (an Upstream in the test's thread, for replies a test scripts in code).

import { Worker } from "node:worker_threads";

export interface Arrival {
  /** When its body was read, on this thread's performance.now() clock (ms). */
  at: number;
  method: string;
  path: string;
  /** The raw query, without `?`. */
  query: string;
  body: string;
  /** Its Authorization header, if any. */
  authorization?: string;
}

export interface DeclaredRoute {
  method: string;
  /** A regular expression's source, tested on the whole raw path. */
  path: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
}

// CommonJS: an `eval` worker is not a module.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { createServer, request } = require("node:http");
const routes = workerData.routes.map((r) => ({ ...r, pattern: new RegExp("^(?:" + r.path + ")$") }));
const fallback = new URL(workerData.fallback);
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const at = performance.timeOrigin + performance.now();
    const body = Buffer.concat(chunks);
    const url = req.url || "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    parentPort.postMessage({ arrival: { at, method: req.method, path, query: q === -1 ? "" : url.slice(q + 1), body: body.toString(), authorization: req.headers.authorization } });
    const route = routes.find((r) => r.method === req.method && r.pattern.test(path));
    if (!route) {
      const headers = { ...req.headers, host: fallback.host };
      const onward = request({ host: fallback.hostname, port: fallback.port, method: req.method, path: url, headers }, (answer) => {
        res.writeHead(answer.statusCode || 502, answer.rawHeaders);
        answer.pipe(res);
      });
      onward.on("error", () => res.writeHead(502).end());
      onward.end(body);
      return;
    }
    const answer = () => res.writeHead(route.status || 200, { "content-type": "application/json" }).end(JSON.stringify(route.body === undefined ? {} : route.body));
    if (route.delayMs) setTimeout(answer, route.delayMs);
    else answer();
  });
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (message) => {
  if (message === "sync") parentPort.postMessage({ synced: true });
  if (message === "close") {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
`;

export class RecordingUpstream {
  /** Every request, in order of arrival (complete after `settled()`). */
  readonly arrivals: Arrival[] = [];
  private syncs: Array<() => void> = [];

  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {
    worker.on("message", (message: { arrival?: Arrival; synced?: boolean }) => {
      if (message.arrival) this.arrivals.push({ ...message.arrival, at: message.arrival.at - performance.timeOrigin });
      if (message.synced) this.syncs.shift()?.();
    });
  }

  static async start({ routes, fallback }: { routes: DeclaredRoute[]; fallback: string }): Promise<RecordingUpstream> {
    const worker = new Worker(WORKER, { eval: true, workerData: { routes, fallback } });
    const port = await new Promise<number>((resolve, reject) => {
      worker.once("error", reject);
      worker.once("message", (message: { port: number }) => resolve(message.port));
    });
    return new RecordingUpstream(worker, `http://127.0.0.1:${port}`);
  }

  /** Resolves once every arrival the worker has stamped so far is in `arrivals` (its messages come in order). */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.syncs.push(resolve);
      this.worker.postMessage("sync");
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.worker.once("exit", resolve));
    this.worker.postMessage("close");
    await exited;
  }
}
