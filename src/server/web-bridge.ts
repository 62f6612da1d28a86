// node:http ↔ web-standard Request/Response. SDK v2's HTTP serving (its streamable HTTP transport, and the
// 2026-07-28 handler) takes a `Request` and answers a `Response`; this server reads requests with node:http, so
// the guard, endpoint auth and the body bounds run before the SDK sees anything. The body is already read and
// parsed by then (http-routes.ts) and is handed to the SDK as `parsedBody`, so the `Request` carries none.

import type { IncomingMessage, ServerResponse } from "node:http";

/** The request as the SDK reads it: method, URL, headers, and a signal that fires when the client goes away. */
export function toWebRequest({ req, res }: { req: IncomingMessage; res: ServerResponse }): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of [value].flat()) headers.append(name, one);
  }
  const controller = new AbortController();
  // The response closes when it is complete too: aborting then is harmless (nothing is waiting any more).
  res.once("close", () => controller.abort());
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  return new Request(url, { method: req.method ?? "GET", headers, signal: controller.signal });
}

/**
 * Writes the SDK's response: status and headers at once (an event stream's client waits for them), then the body
 * as it comes. When the client goes away first, the body is cancelled, which tells the SDK the stream is gone.
 */
export async function sendWebResponse({ response, res }: { response: Response; res: ServerResponse }): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", gone);
  }
}

/** Settles when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}
