// Validation that cost far more than its input (wave 2, finding 2): one 3.8 MiB call whose `tags` held two million
// integers took 5 s of CPU, 1.3 GB and a 66 MiB error result, and held every other client meanwhile; a 1 MiB response
// of wrong values took minutes (Ajv gathered every error, copying the list at each `$ref`); 9,000 objects under
// `uniqueItems` took seconds (every pair compared). The server is the built CLI over streamable HTTP in a child
// process, as users run it, so a blocked server cannot block the test; a second client's pings must be answered at
// once all the while, and every result stays a few KB.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/fixtures.js";
import { spawnCli, textOf, waitFor } from "../support/guard.js";
import { bytes, json, status, Upstream } from "../support/upstream.js";

const SPEC = fixture("e2e/bounds.openapi.yaml");
/** "Well under a second": a ping waits for nothing but the event loop. */
const PING_MS = 1_000;
/** An error result is a few KB, whatever it is about. */
const SMALL_RESULT = 4_096;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const KEY = "bounds-key-0123456789abcdef";

let upstream: Upstream;
let server: ReturnType<typeof spawnCli>;
let caller: Client;
let pinger: Client;

beforeAll(async () => {
  upstream = await Upstream.start();
  server = spawnCli(["serve", SPEC, "--base-url", upstream.url, "--transport", "http", "--port", "0"], {
    API_KEY_KEY: KEY,
  });
  await waitFor(() => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(server.stderr()));
  const url = new URL(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.stderr())![1]!);
  caller = new Client({ name: "caller", version: "0" });
  pinger = new Client({ name: "pinger", version: "0" });
  await caller.connect(new StreamableHTTPClientTransport(url));
  await pinger.connect(new StreamableHTTPClientTransport(url));
  await caller.listTools();
});

afterAll(async () => {
  // Before the fix the server may still be busy: it is killed, not asked.
  server.child.kill("SIGKILL");
  await upstream.close();
});

/** Calls the tool while the other client pings every 100 ms; returns the result, its size and the slowest ping. */
async function whilePinging(
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean; size: number; slowestPingMs: number }> {
  const pending = caller.callTool({ name, arguments: args }, undefined, { timeout: 20_000 });
  let slowest = 0;
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await pinger.ping({ timeout: 20_000 });
    slowest = Math.max(slowest, performance.now() - started);
  }
  const result = await pending;
  return {
    text: textOf(result),
    isError: result.isError === true,
    size: JSON.stringify(result).length,
    slowestPingMs: slowest,
  };
}

describe("arguments", () => {
  it("two million integers where strings belong (3.8 MiB): refused by the array bound, a small result, pings answered", async () => {
    upstream.reset();
    const { text, isError, size, slowestPingMs } = await whilePinging("createPet", {
      body: { name: "Rex", tags: new Array(2_000_000).fill(0) },
    });
    expect(isError).toBe(true);
    expect(text).toContain("The arguments for createPet are too big (an array of 2000000 items, more than 10000)");
    expect(size).toBeLessThan(SMALL_RESULT);
    expect(slowestPingMs).toBeLessThan(PING_MS);
    expect(upstream.requests).toHaveLength(0);
  });

  it("more than 100,000 values in all, each array within its bound: refused, nothing sent", async () => {
    upstream.reset();
    upstream.on("POST", "/pets", status(204));
    const body: Record<string, unknown> = { name: "Rex" };
    for (let i = 0; i < 11; i++) body[`extra${i}`] = new Array(9_999).fill("x");
    const { text, isError } = await whilePinging("createPet", { body });
    expect(isError).toBe(true);
    expect(text).toContain("too big (more than 100000 values in all)");
    expect(upstream.requests).toHaveLength(0);
  });

  it("wrong throughout but within the bounds (9,000 integers): the first mismatch, said to be the first", async () => {
    const { text, isError, size, slowestPingMs } = await whilePinging("createPet", {
      body: { name: "Rex", tags: new Array(9_000).fill(0) },
    });
    expect(isError).toBe(true);
    expect(text).toContain(
      "Invalid arguments for createPet: body.tags[0] must be string (these arguments are large, so only the first mismatch was looked for",
    );
    expect(size).toBeLessThan(SMALL_RESULT);
    expect(slowestPingMs).toBeLessThan(PING_MS);
  });

  it("a small call with several mistakes still hears of each", async () => {
    const result = await caller.callTool({ name: "createPet", arguments: { body: { name: 7, tags: ["a", 1, 2] } } });
    expect(textOf(result)).toContain(
      "body.name must be string; body.tags[1] must be string; body.tags[2] must be string.",
    );
  });

  it("a small call with many mistakes: ten listed, the rest counted", async () => {
    const result = await caller.callTool({
      name: "createPet",
      arguments: { body: { name: "Rex", tags: new Array(25).fill(0) } },
    });
    expect(textOf(result)).toContain("body.tags[9] must be string; and 15 more.");
  });

  it("a field name of a million characters that is not expected: named in a few, the result small", async () => {
    const name = "x".repeat(1_000_000);
    const result = await caller.callTool({ name: "createPet", arguments: { body: { name: "Rex" }, [name]: 1 } });
    expect(textOf(result)).toMatch(
      /^Invalid arguments for createPet: x{59}…x{59} is not an expected field\. Nothing was sent/,
    );
    expect(JSON.stringify(result).length).toBeLessThan(SMALL_RESULT);
  });

  it("9,000 distinct objects under uniqueItems: checked in one pass, sent, pings answered", async () => {
    upstream.reset();
    upstream.on("POST", "/groups", status(204));
    const members = Array.from({ length: 9_000 }, (_, id) => ({
      k0: 0,
      k1: 1,
      k2: 2,
      k3: 3,
      k4: 4,
      k5: 5,
      k6: 6,
      k7: 7,
      k8: 8,
      id,
    }));
    const { isError, slowestPingMs } = await whilePinging("createGroup", { body: { members } });
    expect(isError).toBe(false);
    expect(slowestPingMs).toBeLessThan(PING_MS);
    expect(upstream.requests).toHaveLength(1);
  });

  it("uniqueItems still finds equal objects, whatever their keys' order", async () => {
    const result = await caller.callTool({
      name: "createGroup",
      arguments: { body: { members: [{ a: 1, b: [2] }, { c: 1 }, { b: [2], a: 1 }] } },
    });
    expect(textOf(result)).toContain("body.members must NOT have duplicate items (items ## 0 and 2 are identical)");
  });
});

describe("URLs in messages", () => {
  it("a path value of a megabyte: the URL is shown cut to 2,000 characters", async () => {
    upstream.reset();
    const result = await caller.callTool({ name: "getPet", arguments: { name: "a".repeat(1_000_000) } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^\[GET\] "http:\/\/127\.0\.0\.1:\d+\/pets\/a+…"/);
    expect(JSON.stringify(result).length).toBeLessThan(SMALL_RESULT);
  });

  it("an API key across the cut: masked first, so it shows as the mask, no piece of it", async () => {
    upstream.reset();
    // In the URL as sent, the key starts 5 characters before the cut.
    const before = `${upstream.url}/pets/`.length + "?key=".length;
    const result = await caller.callTool({ name: "getPet", arguments: { name: "a".repeat(1_995 - before) } });
    const text = textOf(result);
    expect(text).toContain(`/pets/${"a".repeat(1_995 - before)}?key=****"`);
    expect(text).not.toContain(KEY.slice(0, 4));
  });
});

describe("responses", () => {
  it("1 MiB of wrong values against a list of $ref'd objects: a small error result, pings answered meanwhile", async () => {
    upstream.reset();
    const zeros = `[${"0,".repeat(MAX_RESPONSE_BYTES / 2 - 2)}0]`;
    upstream.on("GET", "/pets", bytes(zeros, "application/json"));
    const { text, isError, size, slowestPingMs } = await whilePinging("listPets", {});
    expect(isError).toBe(true);
    expect(text).toContain(
      "does not match the tool's output schema ([0] must be object, and maybe more: a response this large is checked up to its first mismatch)",
    );
    expect(size).toBeLessThan(SMALL_RESULT);
    expect(slowestPingMs).toBeLessThan(PING_MS);
  });

  it("JSON that grows past the limit when written out again (1e20 is 21 digits): an error result, not four times the limit", async () => {
    upstream.reset();
    const numbers = `[${"1e20,".repeat(200_000)}1]`;
    upstream.on("GET", "/numbers", bytes(numbers, "application/json"));
    const result = await caller.callTool({ name: "listNumbers", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      `the JSON response, written out, is larger than ${MAX_RESPONSE_BYTES} bytes, the limit (--max-response-bytes)`,
    );
    expect(JSON.stringify(result).length).toBeLessThan(SMALL_RESULT);
  });

  it("a response within the limit is used as before", async () => {
    upstream.reset();
    upstream.on("GET", "/pets", json([{ name: "Rex", tags: ["good"] }]));
    const result = await caller.callTool({ name: "listPets", arguments: {} });
    expect(result.structuredContent).toEqual({ result: [{ name: "Rex", tags: ["good"] }] });
  });
});
