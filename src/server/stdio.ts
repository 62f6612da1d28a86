// MCP over stdio, for desktop clients. stdout carries protocol messages and nothing else: one stray line there
// breaks the client's parser, so diagnostics go to stderr and console output is rerouted while serving.

import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ToolProvider } from "../runtime/types.js";
import { CallTracker } from "./calls.js";
import { boundedLog } from "./log-lines.js";
import { createMcpServer } from "./mcp.js";
import { rawJson } from "./pages.js";

export interface StdioOptions {
  provider: ToolProvider;
  name: string;
  version: string;
  instructions?: string;
  /** How long `close()` lets in-flight calls finish before aborting them (ms). */
  graceMs?: number;
  log?: (line: string) => void;
  /** For tests; default process.stdin / process.stdout. */
  stdin?: Readable;
  stdout?: Writable;
}

export interface StdioHandle {
  /** Lets in-flight calls finish (up to the grace period), then closes the transport. */
  close(): Promise<void>;
  /** Settles when the session ends: the client closed stdin, or `close()` ran. */
  closed: Promise<void>;
}

const CONSOLE_METHODS = ["log", "info", "debug"] as const;

export async function serveStdio({
  provider,
  name,
  version,
  instructions,
  graceMs = 10_000,
  log: write = (line) => process.stderr.write(`${line}\n`),
  stdin = process.stdin,
  stdout = process.stdout,
}: StdioOptions): Promise<StdioHandle> {
  // Lines bounded as over HTTP (a response to an unknown request id would be logged whole).
  const log = boundedLog(write);
  const calls = new CallTracker();
  const server = createMcpServer({ provider, name, version, calls, log, ...(instructions ? { instructions } : {}) });
  const transport = new ListingTransport(stdin, stdout);
  const restoreConsole = stdout === process.stdout ? rerouteConsole() : () => {};

  let markClosed = (): void => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  server.onclose = () => {
    restoreConsole();
    markClosed();
  };
  server.onerror = (error) => log(`mcp: ${error.message}`);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (!(await calls.drain(graceMs))) {
        calls.abort();
        await calls.drain(1_000);
      }
      // Let the answers of the calls just settled reach stdout before the transport goes.
      await new Promise((resolve) => setImmediate(resolve));
      await server.close();
    })();
    return closing;
  };

  // The SDK's stdio transport never notices the end of stdin (it listens to 'data' and 'error' only): without
  // this, a client that goes away leaves the server waiting, and keep-alive sockets keep the process up.
  stdin.once("end", () => void close());
  // A client that exits mid-answer makes stdout fail with EPIPE: end the session instead of crashing on it.
  stdout.on("error", (error) => {
    log(`stdout: ${error.message}`);
    void close();
  });
  await server.connect(transport);
  return { close, closed };
}

/** The SDK's transport, sending a tools/list page serialized already (pages.ts) as it is instead of again. */
class ListingTransport extends StdioServerTransport {
  constructor(
    stdin: Readable,
    private readonly out: Writable,
  ) {
    super(stdin, out);
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const raw = "result" in message ? rawJson(message.result) : undefined;
    if (raw === undefined || !("id" in message)) return super.send(message);
    // What JSON.stringify(message) gives: the SDK's response is { result, jsonrpc, id }.
    const line = `{"result":${raw},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}\n`;
    return new Promise((resolve) => {
      if (this.out.write(line)) resolve();
      else this.out.once("drain", resolve);
    });
  }
}

/** Sends console.log/info/debug to stderr until the returned function restores them. */
function rerouteConsole(): () => void {
  const saved = CONSOLE_METHODS.map((method) => [method, console[method]] as const);
  for (const method of CONSOLE_METHODS) console[method] = console.error;
  return () => {
    for (const [method, original] of saved) console[method] = original;
  };
}
