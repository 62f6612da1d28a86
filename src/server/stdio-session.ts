// The SDK's side of a stdio session (stdio.ts starts it, after the first answers when it can give them early).

import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
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
  /** The id of an initialize request answered already (early.ts): the SDK's answer to it is not sent. */
  answered?: string | number | undefined;
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
  const server = createMcpServer({ provider, name, version, calls, log, ...(instructions ? { instructions } : {}) });
  const transport = new ListingTransport({ stdin, stdout, answered, log });

  let markClosed = (): void => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  server.onclose = () => markClosed();
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
  await server.connect(transport);
  return { close, closed };
}

/**
 * The SDK's transport, sending a tools/list page serialized already (pages.ts) as it is instead of again, and not
 * answering again an initialize request answered early.
 */
class ListingTransport extends StdioServerTransport {
  private readonly out: Writable;
  private answered: string | number | undefined;
  private readonly log: (line: string) => void;

  constructor({
    stdin,
    stdout,
    answered,
    log,
  }: { stdin: Readable; stdout: Writable; answered: string | number | undefined; log: (line: string) => void }) {
    super(stdin, stdout);
    this.out = stdout;
    this.answered = answered;
    this.log = log;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (
      this.answered !== undefined &&
      "id" in message &&
      message.id === this.answered &&
      ("result" in message || "error" in message)
    ) {
      this.answered = undefined;
      // The early answer's checks are the SDK's or stricter, so this would be a bug: said, not sent twice.
      if ("error" in message)
        this.log(`mcp: the SDK refused an initialize request answered early: ${message.error.message}`);
      return Promise.resolve();
    }
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
