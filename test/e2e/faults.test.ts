// Upstream faults, end to end in process: connection resets (before and during the body), stalled bodies, garbage
// under a JSON content type, huge bodies, deeply nested JSON, 5xx, 429 with Retry-After. Each is a clear error
// result; the server keeps answering afterwards; and the heap stays flat across 1,000 faulty calls.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, type Connected, call, connectInProcess, textOf } from "../support/e2e.js";
import { bytes, huge, json, type Reply, reset, stall, status, text, Upstream } from "../support/upstream.js";

let upstream: Upstream;
let connected: Connected;

const TIMEOUT_MS = 200;
const ITEM = { id: 1, name: "one" };

beforeAll(async () => {
  upstream = await Upstream.start();
  connected = await connectInProcess({ baseUrl: `${upstream.url}/v1`, engine: { timeoutMs: TIMEOUT_MS } });
});
afterAll(async () => {
  await connected.close();
  await upstream.close();
});
afterEach(async () => {
  // After every fault, the same server still answers a good call.
  upstream.reset();
  upstream.on("GET", "/v1/items/1", json(ITEM));
  const result = await call(connected.client, "getItem", { id: 1 });
  expect(result.structuredContent, textOf(result)).toEqual(ITEM);
  upstream.reset();
});

function expectError(result: CallResult, ...phrases: Array<string | RegExp>): string {
  const message = textOf(result);
  expect(result.isError, message).toBe(true);
  for (const phrase of phrases) {
    if (typeof phrase === "string") expect(message).toContain(phrase);
    else expect(message).toMatch(phrase);
  }
  return message;
}

describe("connection resets", () => {
  it("before any response: retried (GET), then a network error result", async () => {
    upstream.on("GET", "/v1/items/1", reset());
    expectError(
      await call(connected.client, "getItem", { id: 1 }),
      "could not be reached",
      /ECONNRESET|other side closed|socket/i,
    );
    expect(upstream.requests).toHaveLength(3);
  });

  it("in the middle of the body: retried (GET), then a network error result", async () => {
    upstream.on("GET", "/v1/items/1", reset({ after: { contentType: "application/json", partial: '{"id":1,"na' } }));
    expectError(await call(connected.client, "getItem", { id: 1 }), "could not be reached");
    expect(upstream.requests).toHaveLength(3);
  });

  it("in the middle of the body, once: the retry succeeds", async () => {
    upstream.on(
      "GET",
      "/v1/items/1",
      reset({ after: { contentType: "application/json", partial: '{"id":1,"na' } }),
      json(ITEM),
    );
    expect((await call(connected.client, "getItem", { id: 1 })).structuredContent).toEqual(ITEM);
    expect(upstream.requests).toHaveLength(2);
  });
});

describe("stalled bodies", () => {
  it("headers then silence: a timeout error, and the upstream sees the connection dropped", async () => {
    upstream.on("GET", "/v1/items/1", stall());
    const started = Date.now();
    expectError(
      await call(connected.client, "getItem", { id: 1 }),
      `no complete response within ${TIMEOUT_MS} ms`,
      "did not answer in time",
    );
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
    expect(upstream.requests).toHaveLength(1);
    await upstream.requests[0]!.settled;
    expect(upstream.requests[0]!.abandoned).toBe(true);
  });

  it("a stalled text body: a timeout too, not a partial text passed off as the answer", async () => {
    upstream.on("GET", "/v1/anything/s", stall({ contentType: "text/plain", partial: "the first half" }));
    expectError(await call(connected.client, "getAnything", { name: "s" }), "no complete response");
  });
});

describe("garbage under a JSON content type", () => {
  const garbage: Array<[string, Buffer]> = [
    ["cut short", Buffer.from('{"id":1,"name":')],
    ["HTML", Buffer.from("<html><body>Bad gateway</body></html>")],
    ["not UTF-8", Buffer.from([0xff, 0xfe, 0x00, 0x7b])],
  ];
  for (const [what, body] of garbage) {
    it(`${what}: an error that says the JSON is invalid, with an excerpt`, async () => {
      upstream.on("GET", "/v1/items/1", bytes(body, "application/json"));
      upstream.on("GET", "/v1/anything/g", bytes(body, "application/json; charset=utf-8"));
      expectError(await call(connected.client, "getItem", { id: 1 }), "not valid JSON", "Excerpt");
      expectError(await call(connected.client, "getAnything", { name: "g" }), "not valid JSON");
    });
  }

  it("HTML error page from a proxy: the excerpt shows it", async () => {
    upstream.on("GET", "/v1/items/1", bytes("<html><body>Bad gateway</body></html>", "application/json"));
    expectError(await call(connected.client, "getItem", { id: 1 }), "Bad gateway");
  });
});

describe("huge bodies", () => {
  const SIZE = 64 * 1024 * 1024;

  it("64 MiB of text: cut at the cap (1 MiB by default), with a note; the download is stopped", async () => {
    const body = huge({ size: SIZE, contentType: "text/plain" });
    upstream.on("GET", "/v1/anything/huge", body);
    const started = Date.now();
    const result = await call(connected.client, "getAnything", { name: "huge" });
    expect(result.isError).toBeFalsy();
    const message = textOf(result);
    expect(message.length).toBeLessThan(1024 * 1024 + 500);
    expect(message).toMatch(/\[truncated: .*--max-response-bytes/);
    await upstream.requests[0]!.settled;
    expect(upstream.requests[0]!.abandoned).toBe(true);
    expect(body.sent()).toBeLessThan(SIZE / 2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("64 MiB of JSON, length announced: an error result", async () => {
    upstream.on(
      "GET",
      "/v1/anything/hugejson",
      huge({ size: SIZE, contentType: "application/json", prefix: '{"a":"', declareLength: true }),
    );
    expectError(
      await call(connected.client, "getAnything", { name: "hugejson" }),
      "larger than",
      "--max-response-bytes",
    );
  });

  it("a 64 MiB error page: a bounded excerpt", async () => {
    upstream.on("GET", "/v1/items/1", huge({ size: SIZE, contentType: "text/html", status: 500 }));
    const message = expectError(await call(connected.client, "getItem", { id: 1 }), "500 Internal Server Error");
    expect(message.length).toBeLessThan(2_000);
  });
});

describe("deeply nested JSON", () => {
  // 1 MB each, within the default --max-response-bytes: JSON.parse copes; every recursive walk after it would not.
  const bodies: Array<[string, string]> = [
    ["arrays", `${"[".repeat(500_000)}${"]".repeat(500_000)}`],
    ["objects", `${'{"a":'.repeat(166_000)}1${"}".repeat(166_000)}`],
  ];
  for (const [what, body] of bodies) {
    it(`1 MB of nested ${what}: an error result that says so, with an output schema or without`, async () => {
      upstream.on("GET", "/v1/items/1", bytes(body, "application/json"));
      upstream.on("GET", "/v1/anything/deep", bytes(body, "application/json"));
      expectError(
        await call(connected.client, "getItem", { id: 1 }),
        "nested more than 256 levels deep",
        "cannot be used",
      );
      expectError(await call(connected.client, "getAnything", { name: "deep" }), "nested more than 256 levels deep");
    });
  }
});

describe("5xx and 429", () => {
  it("500 with an HTML page: status, excerpt, hint", async () => {
    upstream.on("GET", "/v1/items/1", text("<h1>Internal error</h1>", { status: 500, contentType: "text/html" }));
    expectError(
      await call(connected.client, "getItem", { id: 1 }),
      "500 Internal Server Error",
      "<h1>Internal error</h1>",
      "failed on its side",
    );
  });

  it("502 from a proxy, every time: retried, then reported", async () => {
    upstream.on("GET", "/v1/items/1", text("bad gateway", { status: 502 }));
    expectError(await call(connected.client, "getItem", { id: 1 }), "502 Bad Gateway", "bad gateway");
    expect(upstream.requests).toHaveLength(3);
  });

  it("429 with Retry-After in seconds: says to wait that long; not hammered with retries", async () => {
    upstream.on("GET", "/v1/items/1", json({ message: "slow down" }, { status: 429, headers: { "retry-after": "7" } }));
    expectError(
      await call(connected.client, "getItem", { id: 1 }),
      "429 Too Many Requests",
      "slow down",
      "rate limiting",
      "wait 7 seconds",
    );
    expect(upstream.requests).toHaveLength(1);
  });

  it("429 with Retry-After as an HTTP date: says when, without calling the date a number of seconds", async () => {
    // RFC 9110 allows `Retry-After: <HTTP-date>`: the hint names the date, never "wait <date> seconds".
    const date = "Wed, 21 Oct 2037 07:28:00 GMT";
    upstream.on("GET", "/v1/items/1", status(429, { "retry-after": date }));
    const message = expectError(
      await call(connected.client, "getItem", { id: 1 }),
      "429 Too Many Requests",
      "rate limiting",
      date,
    );
    expect(message).not.toContain(`${date} seconds`);
  });
});

describe("1,000 faulty calls", () => {
  it("every one an error result, the server still answering, and the heap flat", { timeout: 60_000 }, async () => {
    const gc = forcedGc();
    const other = await connectInProcess({
      baseUrl: `${upstream.url}/v1`,
      engine: { timeoutMs: 60, maxResponseBytes: 16 * 1024, retryDelaysMs: [0, 0] },
    });
    try {
      const faults: Array<[string, Reply]> = [
        ["e500", text("E".repeat(2_000), { status: 500 })],
        ["e429", json({ message: "slow down" }, { status: 429, headers: { "retry-after": "1" } })],
        ["e404", json({ error: "missing" }, { status: 404 })],
        ["garbage", bytes('{"broken":', "application/json")],
        ["reset", reset()],
        ["resetmid", reset({ after: { contentType: "application/json", partial: '{"a":' } })],
        ["big", huge({ size: 256 * 1024, contentType: "application/json" })],
        ["stall", stall()],
      ];
      for (const [name, reply] of faults) upstream.on("GET", `/v1/anything/${name}`, reply);
      const kinds = [...faults.map(([name]) => name), "invalid", "unknown"];
      let errors = 0;
      let rejections = 0;
      const one = async (i: number): Promise<void> => {
        const kind = kinds[i % kinds.length]!;
        if (kind === "unknown") {
          await call(other.client, "noSuchTool").catch(() => rejections++);
          return;
        }
        const result =
          kind === "invalid"
            ? await call(other.client, "getItem", { id: "x" })
            : await call(other.client, "getAnything", { name: kind });
        if (result.isError) errors++;
      };
      const run = async (count: number): Promise<void> => {
        for (let i = 0; i < count; i += 20)
          await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, k) => one(i + k)));
      };

      await run(200);
      gc?.();
      const before = process.memoryUsage().heapUsed;
      errors = 0;
      rejections = 0;
      await run(1_000);
      gc?.();
      const after = process.memoryUsage().heapUsed;

      expect(errors).toBe(900);
      expect(rejections).toBe(100);
      // Connections are pooled and reused, not piling up.
      expect(upstream.openConnections).toBeLessThanOrEqual(64);
      // With a forced collection the heap is compared like for like; without one, garbage not yet collected counts,
      // so the bound is looser.
      const growth = after - before;
      expect(growth, `heap grew by ${(growth / 1024 / 1024).toFixed(1)} MiB`).toBeLessThan((gc ? 8 : 30) * 1024 * 1024);
    } finally {
      await other.close();
    }
  });
});

/** `gc()` without --expose-gc on the command line (vitest's workers are not started with it), or undefined. */
function forcedGc(): (() => void) | undefined {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as (() => void) | undefined;
    if (typeof gc !== "function") return undefined;
    return () => {
      gc();
      gc();
    };
  } catch {
    return undefined;
  }
}
