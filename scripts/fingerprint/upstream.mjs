// The fingerprint's upstream API: plain node:http on 127.0.0.1, answering each request from a queue of scripted
// replies per method and path (the last reply repeats), and recording what reached it (method, raw URL, headers,
// body) so the fingerprint covers the wire on both sides.

import { createServer } from "node:http";

/** Replies: each is (req, res, recorded) => void. */
export const json =
  (value, status = 200, headers = {}) =>
  (_req, res) =>
    void res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
export const text =
  (value, status = 200) =>
  (_req, res) =>
    void res.writeHead(status, { "content-type": "text/plain" }).end(value);
export const status =
  (code, headers = {}) =>
  (_req, res) =>
    void res.writeHead(code, headers).end();
export const bytes = (value, type) => (_req, res) => void res.writeHead(200, { "content-type": type }).end(value);
export const redirect = (code, location) => (_req, res) => void res.writeHead(code, { location }).end();
/** Answers once `release` is called; `arrived` settles when the request is in. */
export function held() {
  let release = () => {};
  let arrived = () => {};
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  const came = new Promise((resolve) => {
    arrived = resolve;
  });
  const reply = async (_req, res) => {
    arrived();
    await gate;
    res.writeHead(200, { "content-type": "application/json" }).end('{"held":true}');
  };
  return { reply, release: () => release(), arrived: came };
}

export async function startUpstream() {
  const routes = new Map();
  const requests = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const path = req.url.split("?")[0];
    const { host: _host, ...headers } = req.headers;
    const recorded = { method: req.method, url: req.url, headers: sorted(headers), body: body.toString("base64") };
    requests.push(recorded);
    const queue = routes.get(`${req.method} ${path}`);
    const reply = queue && (queue.length > 1 ? queue.shift() : queue[0]);
    if (!reply) return void res.writeHead(418, { "content-type": "text/plain" }).end("no route");
    await reply(req, res, recorded);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    on(method, path, ...replies) {
      routes.set(`${method} ${path}`, replies);
    },
    reset() {
      routes.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sorted(headers) {
  return Object.fromEntries(Object.entries(headers).sort(([a], [b]) => a.localeCompare(b)));
}
