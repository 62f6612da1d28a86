// The SDK's side of a stdio session (stdio.ts starts it, after the first answers when it can give them early). The
// SDK's `serveStdio` decides the connection's era from its opening: `initialize` pins a 2025-era server,
// `server/discover` (or any request carrying the 2026-07-28 `_meta` envelope) a 2026-07-28 one.

import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { ToolProvider } from "../runtime/types.js";
import { CallTracker } from "./calls.js";
import { createMcpServer } from "./mcp.js";
import { rawJson } from "./pages.js";
import type { StdioHandle } from "./stdio.js";

export interface SessionOptions {
  provider: ToolProvider;
  name: string;
  version: string;
  instructions?: string | undefined;
  graceMs: number;
  log: (line: string) => void;
  stdin: Readable;
  stdout: Writable;
  /** The ids of requests answered already (early.ts): the SDK's answers to them are not sent. */
  answered?: Array<string | number> | undefined;
}

export async function serveSession({
  provider,
  name,
  version,
  instructions,
  graceMs,
  log,
  stdin,
  stdout,
  answered,
}: SessionOptions): Promise<StdioHandle> {
  const calls = new CallTracker();
  let markClosed = (): void => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const transport = new ListingTransport({ stdin, stdout, answered, log, onClosed: () => markClosed() });
  // One server for the connection (and one more for a `server/discover` probe that falls back to `initialize`).
  const factory = () => {
    const server = createMcpServer({ provider, name, version, calls, log, ...(instructions ? { instructions } : {}) });
    server.onerror = (error) => log(`mcp: ${error.message}`);
    return server;
  };
  let handle: { close(): Promise<void> } | undefined;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (!(await calls.drain(graceMs))) {
        calls.abort();
        await calls.drain(1_000);
      }
      // Let the answers of the calls just settled reach stdout before the transport goes.
      await new Promise((resolve) => setImmediate(resolve));
      await handle?.close();
      await transport.close();
    })();
    return closing;
  };

  // The end of stdin ends the session after the calls in flight are answered (up to the grace period), where the
  // SDK's transport would abort them at once (ListingTransport does not let it). Without this, a client that goes
  // away leaves the server waiting, and keep-alive sockets keep the process up.
  stdin.once("end", () => void close());
  handle = serveStdio(factory, { transport, onerror: (error) => log(`mcp: ${error.message}`) });
  return { close, closed };
}

/**
 * The SDK's transport, sending a tools/list page serialized already (pages.ts) as it is instead of again (in
 * either era), not answering again the requests answered early, and leaving the end of stdin to serveSession.
 */
class ListingTransport extends StdioServerTransport {
  private readonly out: Writable;
  private readonly answered: Array<string | number>;
  private readonly log: (line: string) => void;
  private readonly onClosed: () => void;

  constructor({
    stdin,
    stdout,
    answered,
    log,
    onClosed,
  }: {
    stdin: Readable;
    stdout: Writable;
    answered: Array<string | number> | undefined;
    log: (line: string) => void;
    onClosed: () => void;
  }) {
    super(stdin, stdout);
    this.out = stdout;
    this.answered = [...(answered ?? [])];
    this.log = log;
    this.onClosed = onClosed;
  }

  /** Replaces the SDK's, which closes at once and aborts the calls in flight: serveSession drains them first. */
  override _onstdinclose = (): void => {};

  override async close(): Promise<void> {
    await super.close();
    this.onClosed();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const id = "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
    const at = id === undefined ? -1 : this.answered.indexOf(id);
    if (at >= 0) {
      this.answered.splice(at, 1);
      // The early answer's checks are the SDK's or stricter, so this would be a bug: said, not sent twice.
      if ("error" in message) this.log(`mcp: the SDK refused a request answered early: ${message.error.message}`);
      return Promise.resolve();
    }
    const raw = "result" in message ? rawJson(message.result) : undefined;
    if (raw === undefined || !("id" in message)) return super.send(message);
    // What JSON.stringify(message) gives: the SDK's response is { result, jsonrpc, id } in either era.
    const line = `{"result":${raw},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}\n`;
    return new Promise((resolve) => {
      if (this.out.write(line)) resolve();
      else this.out.once("drain", resolve);
    });
  }
}
