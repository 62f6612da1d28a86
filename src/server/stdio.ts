// MCP over stdio, for desktop clients. stdout carries protocol messages and nothing else: one stray line there
// breaks the client's parser, so diagnostics go to stderr and console output is rerouted while serving. A provider
// with its listing serialized has the opening (`initialize`, or 2026-07-28's `server/discover` or first request) and
// the first tools/list answered before the SDK loads (early.ts); the SDK's session (stdio-session.ts) takes over.

import { PassThrough, type Readable, type Writable } from "node:stream";
import { answerEarly } from "./early.js";
import { boundedLog } from "./log-lines.js";
import { servedProvider } from "../runtime/engine/provider-base.js";
import type { ListingJson, ServedProvider } from "../runtime/types.js";
import type { ServerIdentity } from "./mcp.js";

export interface StdioOptions extends ServerIdentity {
  /** How long `close()` lets in-flight calls finish before aborting them (ms). */
  graceMs?: number;
  log?: (line: string) => void;
  /** For tests; default process.stdin / process.stdout. */
  stdin?: Readable;
  stdout?: Writable;
  /** Answer the opening and the first tools/list before loading the SDK, when the listing is serialized (default true). */
  early?: boolean;
  /** Run before the SDK's session starts (after the early answers): what calls need and those answers did not. */
  ready?: () => void;
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
  early = true,
  ready = () => {},
}: StdioOptions): Promise<StdioHandle> {
  // Lines bounded as over HTTP (a response to an unknown request id would be logged whole).
  const log = boundedLog(write);
  const restoreConsole = stdout === process.stdout ? rerouteConsole() : () => {};
  const served = servedProvider(provider);
  const start = async ({
    input,
    answered,
  }: {
    input: Readable;
    answered?: Array<string | number>;
  }): Promise<StdioHandle> => {
    ready();
    const { serveSession } = await import("./stdio-session.js");
    return serveSession({
      provider: served,
      name,
      version,
      instructions,
      graceMs,
      log,
      stdin: input,
      stdout,
      answered,
    });
  };
  let session: Promise<StdioHandle>;
  // Closed before the SDK took over: it takes over now, to close as a session closes.
  let finishEarly = (): void => {};
  // With profiles, stdio has no verified caller: the default profile's listing is answered (serve refuses to
  // start without one), never another profile's.
  const listed = served.perCaller() ? defaultProvider(served) : served;
  const listing = listed ? serializedListing(listed) : undefined;
  if (early && listing) {
    const answers = answerEarly({
      stdin,
      stdout,
      serverInfo: { name, version },
      ...(instructions ? { instructions } : {}),
      listing,
      ...(served.perCaller() ? { perPrincipal: true } : {}),
      ...(served.changing() ? { changing: true } : {}),
    });
    session = answers.handover.then(({ replay, answered, ended }) => {
      // What the early answers read is read again by the SDK, then the rest of stdin.
      const input = new PassThrough();
      for (const bytes of replay) input.write(bytes);
      if (ended) input.end();
      else stdin.pipe(input);
      return start({ input, answered }).then((handle) => {
        void handle.closed.then(() => {
          stdin.unpipe(input);
          stdin.pause();
        });
        return handle;
      });
    });
    finishEarly = answers.finish;
  } else {
    session = start({ input: stdin });
  }
  const closed = session.then((h) => h.closed).finally(restoreConsole);
  // A client that exits mid-answer makes stdout fail with EPIPE: end the session instead of crashing on it.
  stdout.on("error", (error) => {
    log(`stdout: ${error.message}`);
    void close();
  });
  const close = async (): Promise<void> => {
    finishEarly();
    await (await session).close();
  };
  // Without early answers the session is up when this returns, as before.
  if (!(early && listing)) await session;
  return { close, closed };
}

/** The provider of a caller without endpoint auth, or none when such a caller is refused. */
function defaultProvider(provider: ServedProvider): ServedProvider | undefined {
  try {
    return provider.forCaller(undefined);
  } catch {
    return undefined;
  }
}

/** What the early answers list, when the provider has its listing serialized already (none: the SDK answers). */
function serializedListing(provider: ServedProvider): (() => ListingJson) | undefined {
  const first = provider.listingJson();
  return first ? () => provider.listingJson() ?? first : undefined;
}

/** Sends console.log/info/debug to stderr until the returned function restores them. */
function rerouteConsole(): () => void {
  const saved = CONSOLE_METHODS.map((method) => [method, console[method]] as const);
  for (const method of CONSOLE_METHODS) console[method] = console.error;
  return () => {
    for (const [method, original] of saved) console[method] = original;
  };
}
