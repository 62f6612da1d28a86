// A real HTTP server on 127.0.0.1 serving a directory, recording every request path: tests that need a URL source
// use it, and assert what was (and was not) fetched. Never anything beyond loopback.

import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { join, normalize } from "node:path";

export interface StaticServer {
  /** `http://127.0.0.1:<port>/`, with a trailing slash. */
  url: string;
  /** Request paths in the order they arrived. */
  requests: string[];
  close: () => Promise<void>;
}

export async function serveDirectory(root: string): Promise<StaticServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    requests.push(path);
    const file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (data) =>
        res
          .writeHead(200, { "content-type": file.endsWith(".json") ? "application/json" : "application/yaml" })
          .end(data),
      () => res.writeHead(404, { "content-type": "text/plain" }).end("not found"),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
