// Stopping the HTTP server without cutting answers short: stop accepting, let in-flight calls finish within the grace
// period, abort the rest, let their answers go out, close every session, then every connection.

import type { Server } from "node:http";
import type { CallTracker } from "./calls.js";
import type { McpEndpoint } from "./endpoint.js";

/** After the grace period: how long aborted calls and their answers get to go out before connections are cut. */
const FLUSH_MS = 1_000;

export async function shutDown({
  server,
  calls,
  posts,
  endpoint,
  graceMs,
}: {
  server: Server;
  calls: CallTracker;
  /** POST responses still open: they carry the answers of the calls in flight. */
  posts: ReadonlySet<unknown>;
  endpoint: McpEndpoint;
  graceMs: number;
}): Promise<void> {
  let stopped = false;
  const allClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  void allClosed.then(() => {
    stopped = true;
  });
  server.closeIdleConnections();
  if (!(await calls.drain(graceMs))) {
    calls.abort();
    await calls.drain(FLUSH_MS);
  }
  await until({ done: () => posts.size === 0, ms: FLUSH_MS });
  await endpoint.closeAll();
  // Keep-alive connections that carried a request meanwhile, then whatever is left after a last chance.
  server.closeIdleConnections();
  await until({ done: () => stopped, ms: FLUSH_MS });
  server.closeAllConnections();
  await allClosed;
}

/** Polls `done` until it holds or `ms` pass. */
async function until({ done, ms }: { done: () => boolean; ms: number }): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
