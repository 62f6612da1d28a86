// The first answers of a stdio session given before the SDK loads (early.ts) are the SDK's own, byte for byte:
// the same lines on stdout for the same requests, whatever the client asks first, and the session the SDK then
// takes over behaves as if it had answered them.

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

/** Every line a session writes for `messages` (one line each), by id: answers to several requests may come in any order. */
async function session(messages: Array<object | string>, early: boolean): Promise<string[]> {
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
    provider: new ListedFake(),
    name: "early",
    version: "1.2.3",
    stdin,
    stdout,
    log: () => {},
    early,
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
});
