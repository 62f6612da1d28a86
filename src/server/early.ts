// A stdio session's first answers, written before the MCP SDK has loaded. A client that starts a server sends
// `initialize`, then lists the tools; both answers are known without the SDK, whose imports (~110 ms of CPU) are
// most of a start from the catalog cache. So those are answered here, and the SDK loads when the session is idle
// (IDLE_MS after the last answer given here), not while the client reads the listing on the same machine, or at once when a
// request comes that is not answered here. Only well-formed requests of those two kinds are answered here:
// anything else, and every line from then on, goes to the SDK (stdio-session.ts), which is first handed the
// initialize request and notification so its session holds the client's capabilities and protocol version as if
// it had answered (its second answer dropped).

import type { Readable, Writable } from "node:stream";
import type { ListingJson } from "../runtime/types.js";
import { jsonToolPage, rawJson } from "./pages.js";

// The SDK's 2025-era protocol versions, which test/server/early.test.ts checks against the SDK installed. A
// 2026-07-28 client opens with `server/discover`, not answered here: the SDK loads at once and answers it.
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const SUPPORTED_PROTOCOL_VERSIONS = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** What the server declares: tools, and `logging` so a client may set a level (the SDK answers logging/setLevel). */
export const CAPABILITIES = { tools: { listChanged: false }, logging: {} };

/** How long after the last answer given here the SDK takes over, if no other request came first. */
const IDLE_MS = 300;

export interface Handover {
  /** What the SDK reads first: the initialize request and notification answered here, then every line not answered. */
  replay: Buffer[];
  /** The id of the initialize request answered here, whose answer from the SDK is not sent again. */
  answered?: string | number;
  /** stdin ended before the SDK took over. */
  ended: boolean;
}

export interface EarlyOptions {
  stdin: Readable;
  stdout: Writable;
  serverInfo: { name: string; version: string };
  instructions?: string;
  listing: () => ListingJson;
}

/** Answers until a request it does not answer, or idle after a listing; `handover` settles then (or at `finish()`). */
export function answerEarly({ stdin, stdout, serverInfo, instructions, listing }: EarlyOptions): {
  handover: Promise<Handover>;
  finish(): void;
} {
  const replay: Buffer[] = [];
  let answered: string | number | undefined;
  let pending: Buffer[] = [];
  let done = false;
  let idle: NodeJS.Timeout | undefined;
  let settle = (_: Handover): void => {};
  const handover = new Promise<Handover>((resolve) => {
    settle = resolve;
  });
  const finish = (ended = false): void => {
    if (done) return;
    done = true;
    clearTimeout(idle);
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.pause();
    replay.push(...pending);
    pending = [];
    settle({ replay, ...(answered !== undefined ? { answered } : {}), ended });
  };
  const write = (result: string, id: string | number): void => {
    stdout.write(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`);
  };
  /** What the line was ("initialize" and "listed" were answered here), or undefined to hand it to the SDK. */
  const handle = (line: Buffer): "initialize" | "listed" | undefined => {
    const message = parse(line.toString("utf8").replace(/\r?\n$/, ""));
    if (!message) return undefined;
    if (answered === undefined && isInitialize(message)) {
      const requested = message.params.protocolVersion;
      const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      write(
        JSON.stringify({
          protocolVersion,
          capabilities: CAPABILITIES,
          serverInfo,
          ...(instructions ? { instructions } : {}),
        }),
        message.id,
      );
      answered = message.id;
      return "initialize";
    }
    if (answered !== undefined && message.method === "notifications/initialized" && !("id" in message))
      return "initialize";
    if (answered === undefined || !isListRequest(message)) return undefined;
    const cursor = message.params?.cursor;
    const page = jsonToolPage({ listing: listing(), tools: () => [], ...(cursor !== undefined ? { cursor } : {}) });
    const text = page && rawJson(page);
    if (text === undefined) return undefined;
    write(text, message.id);
    return "listed";
  };
  const onData = (chunk: Buffer): void => {
    let from = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; from = end + 1, end = chunk.indexOf(0x0a, from)) {
      const line = Buffer.concat([...pending, chunk.subarray(from, end + 1)]);
      pending = [];
      const what = handle(line);
      if (what === undefined) {
        pending.push(line, chunk.subarray(end + 1));
        finish();
        return;
      }
      // The initialize lines are replayed to the SDK; a listing answered changes nothing in a session, so is not.
      if (what === "initialize") replay.push(line);
      clearTimeout(idle);
      idle = setTimeout(() => finish(), IDLE_MS);
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  };
  const onEnd = (): void => finish(true);
  stdin.on("data", onData);
  stdin.once("end", onEnd);
  return { handover, finish: () => finish() };
}

interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

function parse(text: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

type Request<P> = Message & { id: string | number; params: P };

/** As the SDK's schema reads it, or stricter: what the SDK might refuse is left to it. */
function isRequest(message: Message, method: string): message is Request<unknown> {
  const { id } = message;
  return message.jsonrpc === "2.0" && message.method === method && (typeof id === "string" || Number.isSafeInteger(id));
}

function isInitialize(message: Message): message is Request<{ protocolVersion: string }> {
  if (!isRequest(message, "initialize") || !isPlainObject(message.params)) return false;
  const { protocolVersion, capabilities, clientInfo, ...rest } = message.params as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    typeof protocolVersion === "string" &&
    isPlainObject(capabilities) &&
    Object.values(capabilities).every(isPlainObject) &&
    isPlainObject(clientInfo) &&
    Object.entries(clientInfo).every(
      ([key, value]) => ["name", "version", "title"].includes(key) && typeof value === "string",
    ) &&
    typeof clientInfo.name === "string" &&
    typeof clientInfo.version === "string"
  );
}

function isListRequest(message: Message): message is Request<{ cursor?: string } | undefined> {
  if (!isRequest(message, "tools/list")) return false;
  if (message.params === undefined) return true;
  if (!isPlainObject(message.params)) return false;
  const { cursor, ...rest } = message.params as Record<string, unknown>;
  return Object.keys(rest).length === 0 && (cursor === undefined || typeof cursor === "string");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
