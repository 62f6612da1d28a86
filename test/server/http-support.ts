// Helpers for the streamable HTTP tests: a server over a fake provider, a connected SDK client, and raw requests
// (fetch cannot set Host).

import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpHandle, type HttpOptions, serveHttp } from "../../src/server/http.js";
import { FakeProvider } from "./fake-provider.js";

/** `serveHttp` on a free loopback port over a FakeProvider, its log lines kept; `cleanups` closes it. */
export async function serveFake({
  cleanups,
  options = {},
}: {
  cleanups: Array<() => unknown>;
  options?: Partial<HttpOptions>;
}): Promise<{ handle: HttpHandle; provider: FakeProvider; logs: string[] }> {
  const provider = new FakeProvider();
  const logs: string[] = [];
  const handle = await serveHttp({
    provider,
    name: "test",
    version: "1.0.0",
    port: 0,
    log: (l) => logs.push(l),
    ...options,
  });
  cleanups.push(() => handle.close());
  return { handle, provider, logs };
}

export async function connectClient(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request to 127.0.0.1 with exactly these headers; the body may be a string or a byte count of filler. */
export function raw({
  port,
  method = "POST",
  path = "/mcp",
  headers = {},
  body,
}: {
  port: number;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    // A server that answers before reading the whole body (413) may reset the upload: the answer is what counts.
    req.on("error", (error) => setTimeout(() => reject(error), 200));
    req.end(body);
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

/** Headers a well-behaved streamable HTTP client sends with a POST. */
export function mcpHeaders(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...extra,
  };
}
