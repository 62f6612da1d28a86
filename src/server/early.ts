// A stdio session's first answers, written before the MCP SDK has loaded. A client that starts a server opens the
// connection, then lists the tools; both answers are known without the SDK, whose imports (~110 ms of CPU) are
// most of a start from the catalog cache. A 2025 client opens with `initialize` (and its notification); a
// 2026-07-28 one with `server/discover`, or at once with `tools/list`, each request carrying the era's `_meta`
// envelope. So those are answered here, and the SDK loads when the session is idle (IDLE_MS after the last answer
// given here), not while the client reads the listing on the same machine, or at once when a request comes that
// is not answered here. Only well-formed requests of those kinds are answered here (early-requests.ts): anything
// else, and every line from then on, goes to the SDK (stdio-session.ts), which is first handed what decided its
// state (the initialize request and notification; every 2026-07-28 request, since the first `tools/list` also pins
// a connection opened by `server/discover`), so that it serves the connection as if it had answered (its second
// answers to those dropped).

import type { Readable, Writable } from "node:stream";
import type { ListingJson } from "../runtime/types.js";
import { cacheHints } from "./cache-hints.js";
import { isInitialize, isListRequest, isModernRequest, MODERN_PROTOCOL_VERSION, parse } from "./early-requests.js";
import { jsonToolPage, rawJson } from "./pages.js";

// The SDK's 2025-era protocol versions, which test/server/early.test.ts checks against the SDK installed.
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

/** The capabilities to declare: `tools.listChanged` when the tools change while serving (a registry, --watch). */
export function capabilities({ listChanged }: { listChanged: boolean }): typeof CAPABILITIES {
  return { tools: { listChanged }, logging: {} };
}

/** Where the SDK puts the server's name and version in every 2026-07-28 result. */
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

/** How long after the last answer given here the SDK takes over, if no other request came first. */
const IDLE_MS = 300;

export interface Handover {
  /** What the SDK reads first: the requests answered here that it must see, then every line not answered. */
  replay: Buffer[];
  /** The ids of the requests replayed, whose answers from the SDK are not sent again. */
  answered: Array<string | number>;
  /** stdin ended before the SDK took over. */
  ended: boolean;
}

export interface EarlyOptions {
  stdin: Readable;
  stdout: Writable;
  serverInfo: { name: string; version: string };
  instructions?: string;
  listing: () => ListingJson;
  /** The listing depends on the caller (profiles): its cache hints say "private". */
  perPrincipal?: boolean;
  /** The tools change while serving (a registry, --watch): declared `listChanged`, hints with a short ttl. */
  changing?: boolean;
}

/** Answers until a request it does not answer, or idle after a listing; `handover` settles then (or at `finish()`). */
export function answerEarly({
  stdin,
  stdout,
  serverInfo,
  instructions,
  listing,
  perPrincipal,
  changing = false,
}: EarlyOptions): {
  handover: Promise<Handover>;
  finish(): void;
} {
  const replay: Buffer[] = [];
  const answered: Array<string | number> = [];
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
    settle({ replay, answered, ended });
  };
  const write = (result: string, id: string | number): void => {
    stdout.write(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`);
  };
  // Which era the opening answered here chose: later requests of the other era go to the SDK.
  let era: "legacy" | "modern" | undefined;
  /** What the line was ("replayed" to the SDK or "listed" only), or undefined to hand it to the SDK. */
  const handle = (line: Buffer): "replayed" | "listed" | undefined => {
    const message = parse(line.toString("utf8").replace(/\r?\n$/, ""));
    if (!message) return undefined;
    if (era === undefined && isInitialize(message)) {
      const requested = message.params.protocolVersion;
      const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      write(
        JSON.stringify({
          protocolVersion,
          capabilities: capabilities({ listChanged: changing }),
          serverInfo,
          ...(instructions ? { instructions } : {}),
        }),
        message.id,
      );
      era = "legacy";
      answered.push(message.id);
      return "replayed";
    }
    if (era === "legacy" && message.method === "notifications/initialized" && !("id" in message)) return "replayed";
    if (era === "legacy" && isListRequest(message)) {
      const page = pageText(message.params?.cursor);
      if (page === undefined) return undefined;
      write(page, message.id);
      return "listed";
    }
    if (era === "legacy" || !isModernRequest(message)) return undefined;
    const text = message.method === "server/discover" ? discover() : pageText(message.params.cursor, "tools/list");
    if (text === undefined) return undefined;
    write(text, message.id);
    era = "modern";
    answered.push(message.id);
    return "replayed";
  };
  /** The fields the SDK adds to a handler's result in the 2026-07-28 era, in its order (cache-hints.ts). */
  const modern = (method: "server/discover" | "tools/list") => ({
    resultType: "complete",
    ...cacheHints({ perPrincipal: perPrincipal ?? false, changing })[method],
    _meta: { [SERVER_INFO_KEY]: serverInfo },
  });
  const discover = (): string =>
    JSON.stringify({
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: capabilities({ listChanged: changing }),
      ...(instructions ? { instructions } : {}),
      ...modern("server/discover"),
    });
  /** A page of the listing as the result's JSON (in the 2026-07-28 era's shape when `method` is given). */
  const pageText = (cursor: string | undefined, method?: "tools/list"): string | undefined => {
    const page = jsonToolPage({ listing: listing(), tools: () => [], ...(cursor !== undefined ? { cursor } : {}) });
    return page && rawJson(method ? { ...page, ...modern(method) } : page);
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
      // A 2025 listing answered changes nothing in a session, so is not replayed.
      if (what === "replayed") replay.push(line);
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
