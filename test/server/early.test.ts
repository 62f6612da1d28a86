// The first answers of a stdio session given before the SDK loads (early.ts) are the SDK's own, byte for byte:
// the same lines on stdout for the same requests, whatever the client asks first and in either protocol era, and
// the session the SDK then takes over behaves as if it had answered them.

import { PassThrough } from "node:stream";
import {
  LATEST_PROTOCOL_VERSION as SDK_LATEST,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { ListingJson } from "../../src/runtime/types.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../../src/server/early.js";
import { serveStdio } from "../../src/server/stdio.js";
import { FakeProvider, TOOLS } from "./fake-provider.js";

/** The fake provider with its listing serialized, as `serve` gives it in tools mode. */
class ListedFake extends FakeProvider {
  /** How often the entries were asked for as objects: a listing serialized once is sent without them over stdio. */
  parsed = 0;

  override listTools() {
    this.parsed++;
    return super.listTools();
  }

  listingJson(): ListingJson {
    return { names: TOOLS.map((tool) => tool.name), texts: TOOLS.map((tool) => JSON.stringify(tool)) };
  }
}

const initialize = (id: unknown, protocolVersion: unknown = "2025-06-18", extra: object = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: {
    protocolVersion,
    capabilities: { roots: { listChanged: true } },
    clientInfo: { name: "early-test", version: "0" },
    ...extra,
  },
});
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
const list = (id: unknown, params?: object) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/list",
  ...(params ? { params } : {}),
});
const call = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hi" } },
});
const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });

// The 2026-07-28 era: no initialize; every request carries the `_meta` envelope, and `server/discover` may open.
const envelope = (extra: object = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "early-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { roots: { listChanged: true }, elicitation: {} },
  ...extra,
});
const modern = (id: unknown, method: string, params: object = {}, meta: object = envelope()) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: meta },
});
const discover = (id: unknown, meta?: object) => modern(id, "server/discover", {}, meta);
const modernList = (id: unknown, params?: object) => modern(id, "tools/list", params);
const modernCall = (id: unknown) => modern(id, "tools/call", { name: "echo", arguments: { text: "hi" } });

/** Every line a session writes for `messages` (one line each), by id: answers to several requests may come in any order. */
async function session(
  messages: Array<object | string>,
  early: boolean,
  { provider = new ListedFake(), instructions }: { provider?: ListedFake; instructions?: string } = {},
): Promise<string[]> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  let rest = "";
  stdout.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split("\n");
    rest = parts.pop()!;
    lines.push(...parts);
  });
  const handle = await serveStdio({
    provider,
    name: "early",
    version: "1.2.3",
    stdin,
    stdout,
    log: () => {},
    early,
    ...(instructions ? { instructions } : {}),
  });
  // A line that is not JSON gets no answer over stdio (the SDK's transport reports it to the server only).
  const expected = messages.filter((m) => typeof m !== "string" && "id" in m).length;
  for (const message of messages)
    stdin.write(typeof message === "string" ? `${message}\n` : `${JSON.stringify(message)}\n`);
  const deadline = Date.now() + 10_000;
  while (lines.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  stdin.end();
  await handle.closed;
  const id = (line: string) => String((JSON.parse(line) as { id: unknown }).id);
  return lines.sort((a, b) => id(a).localeCompare(id(b)));
}

describe("answers given before the SDK loads", () => {
  it("name the protocol versions the SDK supports", () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_SUPPORTED);
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
  });

  it.each([
    ["initialize, then the listing, then a call", [initialize(1), initialized, list(2), call(3)]],
    ["a protocol version the SDK does not know", [initialize(1, "1999-01-01"), initialized, list(2)]],
    ["the oldest protocol version, string ids", [initialize("a", "2024-10-07"), initialized, list("b"), ping(3)]],
    ["a listing with a cursor that is not one", [initialize(1), initialized, list(2, { cursor: "bm9wZQ" }), list(3)]],
    ["a ping before initialize", [ping(1), initialize(2), initialized, list(3)]],
    ["initialize with a field the SDK refuses", [initialize(1, 2025), list(2)]],
    ["initialize with another field", [initialize(1, "2025-06-18", { extra: true }), list(2)]],
    ["a line that is not JSON", ["{not json", initialize(1), list(2)]],
    ["two listings and a call", [initialize(7), initialized, list(8), list(9), call(10)]],
  ])("are the SDK's answers, byte for byte: %s", async (_, messages) => {
    const sdk = await session(messages, false);
    const early = await session(messages, true);
    expect(early).toEqual(sdk);
    expect(sdk.length).toBeGreaterThan(0);
  });

  it.each([
    ["server/discover, then the listing, then a call", [discover(1), modernList(2), modernCall(3)]],
    ["the listing first (a pinned client skips server/discover), twice", [modernList(1), modernList(2)]],
    ["string ids, and a ping", [discover("a"), modernList("b"), ping(3)]],
    ["a listing with a cursor that is not one", [discover(1), modernList(2, { cursor: "bm9wZQ" }), modernList(3)]],
    [
      "a revision the SDK does not serve",
      [discover(1, envelope({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" })), modernList(2)],
    ],
    [
      "an envelope without capabilities",
      [discover(1, { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }), modernList(2)],
    ],
    [
      "an envelope with a log level",
      [discover(1, envelope({ "io.modelcontextprotocol/logLevel": "debug" })), modernList(2)],
    ],
    [
      "capabilities the schema refuses",
      [
        discover(1, envelope({ "io.modelcontextprotocol/clientCapabilities": { roots: { listChanged: "yes" } } })),
        modernList(2),
      ],
    ],
    ["server/discover, then initialize (a client falling back)", [discover(1), initialize(2), initialized, list(3)]],
    ["initialize, then server/discover", [initialize(1), initialized, discover(2), list(3)]],
    ["server/discover, then a listing without the envelope", [discover(1), list(2)]],
  ])("are the SDK's answers to a 2026-07-28 client, byte for byte: %s", async (_, messages) => {
    for (const instructions of [undefined, "Use these tools."]) {
      const sdk = await session(messages, false, { ...(instructions ? { instructions } : {}) });
      const early = await session(messages, true, { ...(instructions ? { instructions } : {}) });
      expect(early).toEqual(sdk);
      expect(sdk.length).toBeGreaterThan(0);
    }
  });

  it("answer a 2026-07-28 opening and its listing before the SDK takes over", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: string[] = [];
    const sdkStarted: boolean[] = [];
    let started = false;
    stdout.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        lines.push(line);
        sdkStarted.push(started);
      }
    });
    const handle = await serveStdio({
      provider: new ListedFake(),
      name: "early",
      version: "1.2.3",
      stdin,
      stdout,
      log: () => {},
      ready: () => {
        started = true;
      },
    });
    stdin.write(`${JSON.stringify(discover(1))}\n${JSON.stringify(modernList(2))}\n`);
    while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    // Answered while the SDK had not started; it takes over afterwards and serves the rest of the session.
    expect(sdkStarted).toEqual([false, false]);
    stdin.write(`${JSON.stringify(modernCall(3))}\n`);
    while (lines.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(started).toBe(true);
    expect(JSON.parse(lines[2]!)).toMatchObject({
      id: 3,
      result: { resultType: "complete", structuredContent: { args: { text: "hi" } } },
    });
    stdin.end();
    await handle.closed;
  });

  it.each([
    ["2025", [initialize(1), initialized, list(2), list(3)]],
    ["2026-07-28", [discover(1), modernList(2), modernList(3)]],
  ])("in the %s era, send the listing serialized once without parsing it, early or not", async (_, messages) => {
    for (const early of [true, false]) {
      const provider = new ListedFake();
      const lines = await session(messages, early, { provider });
      expect(
        lines.map((line) => (JSON.parse(line) as { result?: { tools?: unknown[] } }).result?.tools?.length),
      ).toContain(2);
      expect(provider.parsed).toBe(0);
    }
  });
});
