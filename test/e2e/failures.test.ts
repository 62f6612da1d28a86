// End to end, in process: every way a call can fail is a tool result with `isError: true` whose text says what
// happened and what to do, except an unknown tool (a JSON-RPC error). Also retries, redirects, the response byte
// cap, Content-Type parsing, output validation modes and cancellation, all against a real recording upstream.

import type { Unsettable } from "../support/fixtures.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { EngineOptions } from "../../src/runtime/engine-options.js";
import {
  type CallResult,
  type Connected,
  call,
  closedPort,
  connectInProcess,
  SECRETS,
  secretForms,
  textOf,
} from "../support/e2e.js";
import { loopbackCertificate } from "../support/tls.js";
import { bytes, delayed, hang, json, redirect, reset, status, text, Upstream } from "../support/upstream.js";

let upstream: Upstream;
let connected: Connected;
const extra: Connected[] = [];

beforeAll(async () => {
  upstream = await Upstream.start();
  connected = await connectInProcess({ baseUrl: `${upstream.url}/v1` });
});
afterAll(async () => {
  await connected.close();
  await upstream.close();
});
afterEach(async () => {
  upstream.reset();
  await Promise.all(extra.splice(0).map((c) => c.close()));
});

/** Another client whose engine has these options (closed after the test). */
async function withEngine(engine: Unsettable<EngineOptions>, baseUrl = `${upstream.url}/v1`): Promise<Connected> {
  const other = await connectInProcess({ baseUrl, engine });
  extra.push(other);
  return other;
}

function expectError(result: CallResult, ...phrases: Array<string | RegExp>): string {
  const message = textOf(result);
  expect(result.isError, message).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  for (const phrase of phrases) {
    if (typeof phrase === "string") expect(message).toContain(phrase);
    else expect(message).toMatch(phrase);
  }
  return message;
}

const ITEM = { id: 7, name: "seven" };

describe("non-2xx responses", () => {
  it("say the status, the reason, the upstream's own words and what to do", async () => {
    upstream.on("GET", "/v1/items/5", json({ error: "no item 5" }, { status: 404 }));
    const result = await call(connected.client, "getItem", { id: 5 });
    expectError(result, "404 Not Found", '{"error":"no item 5"}', "Nothing was found there", `/v1/items/5`);
  });

  it("parse a problem+json error body as the excerpt", async () => {
    upstream.on(
      "GET",
      "/v1/items/6",
      json(
        { type: "about:blank", title: "Bad id", detail: "id 6 is reserved" },
        { status: 422, contentType: "application/problem+json; charset=utf-8" },
      ),
    );
    const result = await call(connected.client, "getItem", { id: 6 });
    expectError(result, "422 Unprocessable Entity", "id 6 is reserved", "could not process the arguments");
  });

  it("bound the excerpt of a long error body", async () => {
    upstream.on("GET", "/v1/items/8", text(`${"E".repeat(20_000)}TAIL`, { status: 500 }));
    const result = await call(connected.client, "getItem", { id: 8 });
    const message = expectError(result, "500 Internal Server Error", "EEEE", "…", "failed on its side");
    expect(message).not.toContain("TAIL");
    expect(message.length).toBeLessThan(1_500);
  });

  it("401 and 403 point at the server's configuration, not the arguments", async () => {
    upstream.on("GET", "/v1/anything/a", status(401), status(403));
    expectError(
      await call(connected.client, "getAnything", { name: "a" }),
      "401 Unauthorized",
      "credentials",
      "not from the arguments",
    );
    expectError(await call(connected.client, "getAnything", { name: "a" }), "403 Forbidden", "not allowed");
  });
});

describe("no response at all", () => {
  it("a network error (nothing listens) says the API could not be reached", async () => {
    const other = await withEngine({}, `http://127.0.0.1:${await closedPort()}/v1`);
    const result = await call(other.client, "getItem", { id: 1 });
    expectError(result, "ECONNREFUSED", "could not be reached", "Trying again later");
  });

  it("a timeout: the call ends at timeoutMs, not when the upstream finally answers", async () => {
    const other = await withEngine({ timeoutMs: 150 });
    upstream.on("GET", "/v1/items/1", delayed(2_000, json(ITEM)));
    const started = Date.now();
    const result = await call(other.client, "getItem", { id: 1 });
    const elapsed = Date.now() - started;
    expectError(result, "no complete response within 150 ms", "did not answer in time");
    expect(elapsed).toBeLessThan(1_500);
    // Not retried: the time budget is spent.
    expect(upstream.requests).toHaveLength(1);
    await upstream.requests[0]!.settled;
    expect(upstream.requests[0]!.abandoned).toBe(true);
  });
});

describe("invalid arguments: named, and nothing is sent", () => {
  const cases: Array<[string, string, Record<string, unknown>, string[]]> = [
    ["wrong type", "getItem", { id: "seven" }, ["id must be integer"]],
    ["missing required", "getItem", {}, ["id is required but missing"]],
    ["out of range", "getItem", { id: 0 }, ["id must be >= 1"]],
    ["unknown argument", "getItem", { id: 1, idd: 2 }, ["idd is not an expected field"]],
    [
      "nested body field",
      "jsonBody",
      { body: { name: 5, details: { sizes: ["L"] } } },
      ["body.name must be string", "body.details.sizes[0] must be integer"],
    ],
    ["CR/LF in a header", "getItem", { id: 1, "X-Trace": "a\r\nX-Injected: 1" }, ["X-Trace", "no line breaks"]],
    ["bad base64 file", "binaryBody", { name: "f", body: "not base64!" }, ["body", "not valid base64"]],
    [
      "a file without data",
      "multipartBody",
      { body: { file: { filename: "a.png" } } },
      ["body.file.data is required but missing"],
    ],
  ];
  for (const [what, tool, args, phrases] of cases) {
    it(what, async () => {
      const result = await call(connected.client, tool, args);
      expectError(result, `Invalid arguments for ${tool}`, "Nothing was sent", ...phrases);
      expect(upstream.requests).toEqual([]);
    });
  }

  it("a header value HTTP cannot carry is an argument error, not 'the API could not be reached'", async () => {
    // Control characters and characters beyond Latin-1 are refused before sending: undici's own refusal
    // (UND_ERR_INVALID_ARG) would read as "The API could not be reached" and be retried.
    for (const value of ["tick ✓", "bell \u0007"]) {
      const result = await call(connected.client, "getItem", { id: 1, "X-Trace": value });
      const message = expectError(result, "X-Trace", "Nothing was sent");
      expect(message).not.toContain("could not be reached");
    }
    expect(upstream.requests).toEqual([]);
  });
});

describe("output validation", () => {
  const WRONG = { id: "7", name: 7 };

  it("strict: a mismatch is an error naming each field, with the raw response", async () => {
    upstream.on("GET", "/v1/items/7", json(WRONG));
    const result = await call(connected.client, "getItem", { id: 7 });
    expectError(
      result,
      "does not match the tool's output schema",
      "id must be integer",
      "name must be string",
      '{"id":"7","name":7}',
    );
  });

  it("strict: a wrapped array names the element", async () => {
    upstream.on("GET", "/v1/array", json([ITEM, { id: "x", name: "y" }]));
    const result = await call(connected.client, "getArray");
    expectError(result, "[1].id must be integer");
  });

  it("strict: a missing body where JSON is promised is an error", async () => {
    upstream.on("GET", "/v1/items/7", bytes("", "application/json"));
    expectError(await call(connected.client, "getItem", { id: 7 }), "no content", "output schema");
  });

  it("strict: advertises the output schema", async () => {
    const { tools } = await connected.client.listTools();
    expect(tools.find((t) => t.name === "getItem")!.outputSchema).toBeDefined();
  });

  it("warn: the data comes back with the mismatch noted, and no output schema is advertised", async () => {
    const other = await withEngine({ outputValidation: "warn" });
    const { tools } = await other.client.listTools();
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    upstream.on("GET", "/v1/items/7", json(WRONG));
    const result = await call(other.client, "getItem", { id: 7 });
    expect(result.isError).toBeFalsy();
    const message = textOf(result);
    expect(message).toContain('{"id":"7","name":7}');
    expect(message).toMatch(/does not match the documented schema: .*id must be integer/);
    // A conforming response is passed on as structured data.
    upstream.reset();
    upstream.on("GET", "/v1/items/7", json(ITEM));
    expect(await call(other.client, "getItem", { id: 7 })).toEqual({
      content: [{ type: "text", text: JSON.stringify(ITEM) }],
      structuredContent: ITEM,
    });
  });

  it("off: the data as it came, no note, no output schema", async () => {
    const other = await withEngine({ outputValidation: "off" });
    const { tools } = await other.client.listTools();
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    upstream.on("GET", "/v1/items/7", json(WRONG));
    const result = await call(other.client, "getItem", { id: 7 });
    expect(result).toEqual({ content: [{ type: "text", text: JSON.stringify(WRONG) }], structuredContent: WRONG });
  });

  it("strict: a non-JSON success where the tool promises JSON is an error result, not a protocol failure", async () => {
    // With an output schema, a result without structuredContent makes the SDK client reject the whole call ("Tool
    // getItem has an output schema but did not return structured content"): the model must get an isError result.
    upstream.on(
      "GET",
      "/v1/items/7",
      text("<html>maintenance</html>", { contentType: "text/html" }),
      bytes(JSON.stringify(ITEM), "application/jsonx"),
    );
    const html = await call(connected.client, "getItem", { id: 7 }).catch((error: unknown) => error);
    expect(html, String(html)).not.toBeInstanceOf(Error);
    expectError(html as CallResult, "text/html");
    const jsonx = await call(connected.client, "getItem", { id: 7 }).catch((error: unknown) => error);
    expect(jsonx, String(jsonx)).not.toBeInstanceOf(Error);
    expectError(jsonx as CallResult, "application/jsonx");
  });
});

describe("protocol faults", () => {
  it("an unknown tool is a JSON-RPC InvalidParams error, and nothing is sent", async () => {
    const error = await call(connected.client, "noSuchTool").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain("Unknown tool: noSuchTool");
    expect(upstream.requests).toEqual([]);
  });
});

describe("cancellation", () => {
  it("a client's cancellation aborts the upstream request: the upstream sees its connection close", async () => {
    upstream.on("GET", "/v1/anything/slow", hang());
    const controller = new AbortController();
    const pending = call(connected.client, "getAnything", { name: "slow" }, { signal: controller.signal });
    await upstream.received(1);
    controller.abort("the user changed their mind");
    await expect(pending).rejects.toThrow();
    const request = upstream.requests[0]!;
    await Promise.race([request.settled, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    expect(request.abandoned).toBe(true);
    // Not retried after the cancellation, and the server still answers.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(upstream.requests).toHaveLength(1);
    upstream.on("GET", "/v1/items/1", json(ITEM));
    expect((await call(connected.client, "getItem", { id: 1 })).structuredContent).toEqual(ITEM);
  });
});

describe("retries", () => {
  it("GET: retried on 503, then succeeds", async () => {
    upstream.on("GET", "/v1/items/1", status(503), json(ITEM));
    const result = await call(connected.client, "getItem", { id: 1 });
    expect(result.structuredContent).toEqual(ITEM);
    expect(upstream.requests).toHaveLength(2);
  });

  it("GET: 502 and 504 are retried too, at most twice; then the last answer is the error", async () => {
    upstream.on("GET", "/v1/items/1", status(502), status(504), status(503), json(ITEM));
    const result = await call(connected.client, "getItem", { id: 1 });
    expectError(result, "503 Service Unavailable", "trying again later may work");
    expect(upstream.requests).toHaveLength(3);
  });

  it("GET: backs off between attempts (default delays)", async () => {
    const other = await withEngine({ retryDelaysMs: undefined });
    upstream.on("GET", "/v1/items/1", status(503), json(ITEM));
    const started = Date.now();
    expect((await call(other.client, "getItem", { id: 1 })).structuredContent).toEqual(ITEM);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(upstream.requests).toHaveLength(2);
  });

  it("GET: 500 is not retried (the upstream failed, it was not unavailable)", async () => {
    upstream.on("GET", "/v1/items/1", status(500), json(ITEM));
    expectError(await call(connected.client, "getItem", { id: 1 }), "500");
    expect(upstream.requests).toHaveLength(1);
  });

  it("GET: a connection reset is retried", async () => {
    upstream.on("GET", "/v1/items/1", reset(), json(ITEM));
    const result = await call(connected.client, "getItem", { id: 1 });
    expect(result.structuredContent).toEqual(ITEM);
    expect(upstream.requests).toHaveLength(2);
  });

  it("PUT (idempotent): retried with the same body and credentials", async () => {
    upstream.on("PUT", "/v1/items/3", status(503), json({ id: 3, name: "three" }));
    const result = await call(connected.client, "putItem", { id: 3, body: { name: "three" } });
    expect(result.structuredContent).toEqual({ id: 3, name: "three" });
    const [first, second] = upstream.requests;
    expect(upstream.requests).toHaveLength(2);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(second!.body.toString()).toBe('{"name":"three"}');
    expect(second!.headers.authorization).toBe(`Bearer ${SECRETS.BEARER_TOKEN_BEARERAUTH}`);
  });

  it("POST: never retried, on 503 or on a connection reset", async () => {
    upstream.on("POST", "/v1/items", status(503));
    expectError(await call(connected.client, "createItem", { body: { name: "x" } }), "503");
    expect(upstream.requests).toHaveLength(1);
    upstream.reset();
    upstream.on("POST", "/v1/items", reset());
    expectError(await call(connected.client, "createItem", { body: { name: "x" } }), "could not be reached");
    expect(upstream.requests).toHaveLength(1);
  });

  it("GET: a 429 asking for a short wait (Retry-After: 1) is waited out and retried", async () => {
    upstream.on("GET", "/v1/items/1", status(429, { "retry-after": "1" }), json(ITEM));
    const result = await call(connected.client, "getItem", { id: 1 });
    expect(result.structuredContent).toEqual(ITEM);
    expect(upstream.requests).toHaveLength(2);
  });

  it("GET: a 429 or 503 asking for a long wait is handed to the model with the wait, not held open", async () => {
    upstream.on("GET", "/v1/items/1", status(429, { "retry-after": "30" }));
    expectError(await call(connected.client, "getItem", { id: 1 }), "429", "wait 30 seconds");
    expect(upstream.requests).toHaveLength(1);
    upstream.reset();
    upstream.on("GET", "/v1/items/1", status(503, { "retry-after": "120" }));
    expectError(await call(connected.client, "getItem", { id: 1 }), "503");
    expect(upstream.requests).toHaveLength(1);
  });

  it("POST: a 429 is never retried, however short the wait", async () => {
    upstream.on("POST", "/v1/items", status(429, { "retry-after": "1" }));
    expectError(
      await call(connected.client, "createItem", { body: { name: "x" } }),
      "429",
      "wait 1 second (Retry-After)",
    );
    expect(upstream.requests).toHaveLength(1);
  });
});

describe("oversized arguments", () => {
  it("are refused before anything is validated, built or sent", async () => {
    const other = await withEngine({ maxArgumentBytes: 1_000 });
    const result = await call(other.client, "createItem", { body: { name: "x".repeat(2_000) } });
    expectError(result, "too big (more than 1000 bytes)", "Nothing was sent");
    expect(upstream.requests).toEqual([]);
  });
});

describe("redirects", () => {
  it("307 within the origin keeps the method, the body and the credentials", async () => {
    upstream.on("POST", "/v1/anything/a", redirect(307, "/v1/anything/b"));
    upstream.on("POST", "/v1/anything/b", json({ at: "b" }));
    const result = await call(connected.client, "postAnything", { name: "a", body: { n: 1 } });
    expect(result.structuredContent).toEqual({ at: "b" });
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /v1/anything/a",
      "POST /v1/anything/b",
    ]);
    const second = upstream.requests[1]!;
    expect(second.body.toString()).toBe('{"n":1}');
    expect(second.headers["content-type"]).toBe("application/json");
    expect(second.headers["x-api-key"]).toBe(SECRETS.API_KEY_HEADERKEY);
  });

  it("303 continues as a GET without the body", async () => {
    upstream.on("POST", "/v1/anything/a", redirect(303, `${upstream.url}/v1/anything/c?page=2`));
    upstream.on("GET", "/v1/anything/c", json({ at: "c" }));
    const result = await call(connected.client, "postAnything", { name: "a", body: { n: 1 } });
    expect(result.structuredContent).toEqual({ at: "c" });
    const second = upstream.requests[1]!;
    expect(`${second.method} ${second.url}`).toBe("GET /v1/anything/c?page=2");
    expect(second.body.length).toBe(0);
    expect(second.headers["content-type"]).toBeUndefined();
    expect(second.headers["content-length"]).toBeUndefined();
  });

  it("301 and 302 after a GET are followed", async () => {
    upstream.on("GET", "/v1/anything/old", redirect(301, "/v1/anything/mid"));
    upstream.on("GET", "/v1/anything/mid", redirect(302, "new"));
    upstream.on("GET", "/v1/anything/new", text("here"));
    const result = await call(connected.client, "getAnything", { name: "old" });
    expect(result).toEqual({ content: [{ type: "text", text: "here" }] });
    expect(upstream.requests.map((r) => r.url)).toEqual(["/v1/anything/old", "/v1/anything/mid", "/v1/anything/new"]);
  });

  it("a redirect loop ends after 5 hops with an error", async () => {
    upstream.on("GET", "/v1/anything/loop", redirect(302, "/v1/anything/loop"));
    expectError(await call(connected.client, "getAnything", { name: "loop" }), "more than 5 redirects");
    expect(upstream.requests).toHaveLength(6);
  });

  it("to another origin: refused; that origin gets no request, so no credential leaves", async () => {
    const other = await Upstream.start();
    try {
      other.on("GET", /.*/, json({ stolen: true }));
      other.on("POST", /.*/, json({ stolen: true }));
      for (const target of [`${other.url}/steal`, `http://localhost:${upstream.port}/v1/anything/b`]) {
        upstream.reset();
        upstream.on("GET", "/v1/anything/a", redirect(302, target));
        upstream.on("POST", "/v1/anything/a", redirect(307, target));
        const got = await call(connected.client, "getAnything", { name: "a" });
        expectError(got, "redirected to another origin", new URL(target).origin, "not followed");
        const posted = await call(connected.client, "postAnything", { name: "a", body: { secret: "data" } });
        expectError(posted, "redirected to another origin");
        expect(upstream.requests).toHaveLength(2);
        for (const secret of secretForms()) expect(JSON.stringify([got, posted])).not.toContain(secret);
      }
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  const certificate = loopbackCertificate();
  it.skipIf(!certificate)(
    "from https, to http: never followed (another origin), even to the same host and port",
    async () => {
      const secure = await Upstream.start({ tls: certificate! });
      const plain = await Upstream.start();
      const agent = new Agent({ connect: { ca: certificate!.cert } });
      try {
        const client = (await withEngine({ dispatcher: agent }, `${secure.url}/v1`)).client;
        plain.on("GET", /.*/, json({ downgraded: true }));
        secure.on("GET", "/v1/anything/same", redirect(302, "/v1/anything/ok"));
        secure.on("GET", "/v1/anything/ok", json({ over: "https" }));
        // Sanity: the https upstream works, and a same-origin redirect there is followed.
        expect((await call(client, "getAnything", { name: "same" })).structuredContent).toEqual({ over: "https" });
        expect(secure.requests.map((r) => r.headers["x-api-key"])).toEqual([
          SECRETS.API_KEY_HEADERKEY,
          SECRETS.API_KEY_HEADERKEY,
        ]);
        for (const target of [`${plain.url}/v1/anything/x`, `http://127.0.0.1:${secure.port}/v1/anything/x`]) {
          secure.on("GET", "/v1/anything/down", redirect(301, target));
          expectError(
            await call(client, "getAnything", { name: "down" }),
            "redirected to another origin",
            new URL(target).origin,
          );
        }
        expect(plain.requests).toEqual([]);
      } finally {
        await agent.close();
        await secure.close();
        await plain.close();
      }
    },
  );
});

describe("the response byte cap", () => {
  const CAP = 1_000;
  let capped: Connected;
  beforeAll(async () => {
    capped = await connectInProcess({ baseUrl: `${upstream.url}/v1`, engine: { maxResponseBytes: CAP } });
  });
  afterAll(() => capped.close());

  it("JSON over the cap: an error result that says so and what to do", async () => {
    upstream.on("GET", "/v1/anything/big", json({ items: "x".repeat(5_000) }));
    expectError(
      await call(capped.client, "getAnything", { name: "big" }),
      `larger than ${CAP} bytes`,
      "--max-response-bytes",
      "Ask for less",
    );
  });

  it("JSON exactly at the cap: passed on", async () => {
    const value = { items: "x".repeat(CAP - 12) };
    expect(JSON.stringify(value)).toHaveLength(CAP);
    upstream.on("GET", "/v1/anything/edge", json(value));
    expect((await call(capped.client, "getAnything", { name: "edge" })).structuredContent).toEqual(value);
  });

  it("text over the cap: cut at the cap, with a note", async () => {
    upstream.on("GET", "/v1/anything/long", text(`${"a".repeat(CAP)}${"b".repeat(4_000)}`));
    const result = await call(capped.client, "getAnything", { name: "long" });
    expect(result.isError).toBeFalsy();
    const message = textOf(result);
    expect(message.startsWith("a".repeat(CAP))).toBe(true);
    expect(message).not.toContain("ab");
    expect(message).toMatch(/\[truncated: .*1000 bytes.*--max-response-bytes/);
  });

  it("an image over the cap: an error, not broken bytes", async () => {
    upstream.on("GET", "/v1/image", bytes(Buffer.alloc(5_000, 1), "image/png"));
    expectError(await call(capped.client, "getImage"), "image/png", "--max-response-bytes");
  });
});

describe("Content-Type parsed by structure, never by substring", () => {
  const VALUE = { a: 1 };
  const cases: Array<[string, boolean]> = [
    ["application/problem+json; charset=utf-8", true],
    ["APPLICATION/JSON;CHARSET=UTF-8", true],
    ["application/vnd.api+json", true],
    ["text/json", true],
    ["application/jsonx", false],
    ["application/json-seq", false],
    ["application/x-json-stream", false],
  ];
  for (const [contentType, isJson] of cases) {
    it(`${contentType} is ${isJson ? "" : "not "}JSON`, async () => {
      upstream.on("GET", "/v1/anything/ct", bytes(JSON.stringify(VALUE), contentType));
      const result = await call(connected.client, "getAnything", { name: "ct" });
      expect(result.isError).toBeFalsy();
      if (isJson) {
        expect(result).toEqual({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: VALUE });
      } else {
        expect(result.structuredContent).toBeUndefined();
        expect(result.content).toEqual([
          {
            type: "resource",
            resource: {
              uri: `${upstream.url}/v1/anything/ct`,
              mimeType: contentType,
              blob: Buffer.from('{"a":1}').toString("base64"),
            },
          },
        ]);
      }
    });
  }

  it("problem+json with a charset is JSON for a tool with an output schema too", async () => {
    upstream.on("GET", "/v1/items/7", json(ITEM, { contentType: "application/problem+json; charset=utf-8" }));
    expect((await call(connected.client, "getItem", { id: 7 })).structuredContent).toEqual(ITEM);
  });
});

describe("deeply nested arguments", () => {
  it("are refused, not walked into a stack overflow", async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const result = await call(connected.client, "createItem", { body: deep });
    expectError(result, "nested more than 64 levels deep", "Nothing was sent");
    expect(upstream.requests).toEqual([]);
  });
});
