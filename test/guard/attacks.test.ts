// The attack set, end to end through the real engine behind the SDK client: CR/LF in headers, `../` and encoded
// slashes and dots in path values, absolute URLs and `//evil` in arguments, redirects to another origin and from
// https down to http, an external `$ref` to a local file from a spec fetched from a URL, oversized arguments, and
// 10,000 rapid calls against a rate limit. Nothing leaks (every result is searched for the canary), nothing
// crashes (the server answers afterwards), nothing reaches another host, nothing exceeds a limit.

import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUserError } from "../../src/catalog/errors.js";
import { loadCatalog } from "../../src/load/index.js";
import { memoryAuditLog } from "../../src/runtime/audit/audit.js";
import { Engine } from "../../src/runtime/engine.js";
import { serve } from "../../src/app/serve.js";
import { runCli } from "../support/cli.js";
import { rejection } from "../support/fixtures.js";
import {
  canaryEnv,
  connectProvider,
  echo,
  forbiddenForms,
  guardSpec,
  type InProcess,
  leaksIn,
  serveOverStdio,
  tempDir,
  textOf,
  writeFile,
} from "../support/guard.js";
import { serveDirectory } from "../support/http.js";
import { loopbackCertificate } from "../support/tls.js";
import { type RecordedRequest, Upstream } from "../support/upstream.js";

let api: Upstream;
let evil: Upstream;
let temp: ReturnType<typeof tempDir>;
let spec: string;
let connected: InProcess;
const audit = memoryAuditLog();
/** Every result and error any attack got back, searched for the canary at the end. */
const shown: Array<{ what: string; text: string }> = [];

type Result = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

async function attempt(
  tool: string,
  args: Record<string, unknown>,
  client: Client = connected.client,
): Promise<Result> {
  try {
    const result = (await client.callTool({ name: tool, arguments: args })) as Result;
    shown.push({ what: `${tool} ${JSON.stringify(args).slice(0, 100)}`, text: JSON.stringify(result) });
    return result;
  } catch (error) {
    shown.push({ what: `${tool} (JSON-RPC error)`, text: String(error) });
    throw error;
  }
}

/** Requests the API got while `run` ran. */
async function during(run: () => Promise<unknown>): Promise<RecordedRequest[]> {
  const before = api.requests.length;
  await run();
  return api.requests.slice(before);
}

beforeAll(async () => {
  [api, evil] = await Promise.all([Upstream.start(), Upstream.start()]);
  api.on("GET", /^\/v1\/anything\//, echo());
  api.on("POST", /^\/v1\/anything\//, echo());
  api.on("DELETE", /^\/v1\/header\//, echo());
  evil.on("GET", /.*/, echo());
  evil.on("POST", /.*/, echo());
  temp = tempDir();
  spec = writeFile(
    temp.dir,
    "guard.openapi.json",
    guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${api.url}/oauth/token` }),
  );
  const engine = new Engine({
    catalog: await loadCatalog(spec),
    env: canaryEnv(),
    timeoutMs: 2_000,
    retryDelaysMs: [5],
    audit,
  });
  connected = await connectProvider(engine, { elicit: () => ({ action: "accept", content: { approve: true } }) });
});

afterAll(async () => {
  await connected.close();
  await Promise.all([api.close(), evil.close()]);
  temp.remove();
});

function expectRefused(result: Result, ...phrases: string[]): void {
  const text = textOf(result);
  expect(result.isError, text).toBe(true);
  for (const phrase of phrases) expect(text).toContain(phrase);
}

describe("CR/LF and other control characters in arguments", () => {
  const VALUES = [
    "a\r\nX-Injected: 1",
    "a\nX-Injected: 1",
    "a\rX-Injected: 1",
    "a\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil\r\n\r\n",
    "a\u0000b",
    "a\u2028X-Injected: 1",
    "a\u0085X-Injected: 1",
  ];

  it("in a header parameter: refused as an argument error, nothing sent", async () => {
    for (const value of VALUES) {
      const requests = await during(async () => {
        const result = await attempt("getAnything", { name: "h", "X-Trace": value });
        expectRefused(result, "Invalid arguments for getAnything", "X-Trace", "Nothing was sent");
      });
      expect(requests, JSON.stringify(value)).toEqual([]);
    }
  });

  it("in a cookie, the query, the path and a JSON body: encoded, never a new header or request", async () => {
    for (const value of VALUES) {
      for (const args of [{ name: "c", pref: value }, { name: "q", q: value }, { name: value }]) {
        const requests = await during(() => attempt("getAnything", args));
        // Either refused (nothing sent) or sent once, with the value encoded.
        expect(requests.length).toBeLessThanOrEqual(1);
        for (const request of requests) {
          expect(request.headers["x-injected"]).toBeUndefined();
          expect(request.url).not.toMatch(/[\r\n\0\s]/);
          expect(request.url.startsWith("/v1/anything/")).toBe(true);
          for (const header of request.rawHeaders) expect(header).not.toMatch(/[\r\n\0]/);
        }
      }
      const requests = await during(() => attempt("postAnything", { name: "b", body: { note: value } }));
      expect(requests).toHaveLength(1);
      expect(JSON.parse(requests[0]!.body.toString("utf8"))).toEqual({ note: value });
      expect(requests[0]!.headers["x-injected"]).toBeUndefined();
    }
    expect(api.requests.some((r) => r.path.startsWith("/smuggled"))).toBe(false);
  });

  it("arguments cannot add or override headers (Host, the API key) the spec does not declare", async () => {
    for (const extra of [
      { Host: "evil.example" },
      { "X-API-Key": "attacker-key" },
      { authorization: "Bearer attacker" },
      { api_key: "attacker" },
    ]) {
      const requests = await during(async () => {
        const result = await attempt("getAnything", { name: "x", ...extra });
        expectRefused(result, "Invalid arguments", "not an expected field", "Nothing was sent");
      });
      expect(requests).toEqual([]);
    }
  });
});

describe("path values cannot change the path's shape", () => {
  const SENT = [
    "../admin",
    "../../etc/passwd",
    "..%2Fadmin",
    "%2e%2e",
    "%2e%2e%2fadmin",
    "%2F",
    "a/b",
    "..\\admin",
    "..;/admin",
    "%2e",
    ".%2e",
    "?x=1",
    "#frag",
    "a b",
    "//evil",
    "\\\\evil",
  ];
  const REFUSED = [".", "..", ""];

  it.each(SENT)("%j reaches /v1/anything/ as one encoded segment", async (value) => {
    const requests = await during(() => attempt("getAnything", { name: value }));
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.query).toBe("");
    const segments = request!.path.split("/");
    expect(segments.slice(0, 3)).toEqual(["", "v1", "anything"]);
    expect(segments).toHaveLength(4);
    expect(decodeURIComponent(segments[3]!)).toBe(value);
    // What a normalizing proxy or server would make of it: still that one resource.
    expect(new URL(request!.url, api.url).pathname.startsWith("/v1/anything/")).toBe(true);
    expect(new URL(request!.url, api.url).pathname.split("/")).toHaveLength(4);
  });

  it.each(REFUSED)("%j is refused: it would name another resource", async (value) => {
    const requests = await during(async () => {
      const result = await attempt("getAnything", { name: value });
      expectRefused(result, "Invalid arguments for getAnything", "Nothing was sent");
    });
    expect(requests).toEqual([]);
  });
});

describe("absolute URLs and //evil in arguments never reach another host", () => {
  it("in the path, the query, a header, a cookie and the body", async () => {
    const evilHost = evil.url.replace("http://", "");
    const VALUES = [
      `${evil.url}/x`,
      `//${evilHost}/x`,
      `http:${evilHost}`,
      `@${evilHost}`,
      `https://${evilHost}`,
      `${evil.url}#`,
      `\\\\${evilHost}\\x`,
    ];
    for (const value of VALUES) {
      const requests = await during(async () => {
        await attempt("getAnything", { name: value, q: value, "X-Trace": value, pref: value });
        await attempt("postAnything", { name: value, body: { url: value } });
      });
      expect(requests, value).toHaveLength(2);
      for (const request of requests) expect(request.headers.host).toBe(api.url.replace("http://", ""));
    }
    expect(evil.requests).toEqual([]);
  });
});

describe("redirects", () => {
  it("to another origin: not followed, the other origin sees zero requests, the result says so", async () => {
    const evilHost = evil.url.replace("http://", "");
    const apiPort = api.port;
    const targets: Array<[number, string]> = [
      [302, `${evil.url}/steal`],
      [301, `${evil.url}/steal`],
      [303, `${evil.url}/steal`],
      [307, `${evil.url}/steal`],
      [308, `${evil.url}/steal`],
      [302, `//${evilHost}/steal`],
      [302, `http://127.0.0.1:${apiPort}@${evilHost}/steal`],
      [302, `http://localhost:${apiPort}/v1/anything/same-port-other-host`],
      [302, `https://127.0.0.1:${apiPort}/v1/anything/other-scheme`],
    ];
    for (const [code, location] of targets) {
      api.on(
        "GET",
        "/v1/anything/redirect",
        ({ res }) => void res.writeHead(code, { location, "content-length": 0 }).end(),
      );
      api.on(
        "POST",
        "/v1/anything/redirect",
        ({ res }) => void res.writeHead(code, { location, "content-length": 0 }).end(),
      );
      for (const tool of ["getAnything", "postAnything"]) {
        const requests = await during(async () => {
          const result = await attempt(tool, { name: "redirect" });
          expectRefused(result, "redirected to another origin", "not followed");
        });
        expect(
          requests.map((r) => r.path),
          `${code} ${location}`,
        ).toEqual(["/v1/anything/redirect"]);
      }
    }
    // A same-origin hop first, then away: the hop is followed, the second is not.
    api.on(
      "GET",
      "/v1/anything/hop",
      ({ res }) => void res.writeHead(302, { location: "/v1/anything/redirect", "content-length": 0 }).end(),
    );
    const requests = await during(async () =>
      expectRefused(await attempt("getAnything", { name: "hop" }), "redirected to another origin"),
    );
    expect(requests.map((r) => r.path)).toEqual(["/v1/anything/hop", "/v1/anything/redirect"]);
    expect(evil.requests).toEqual([]);
  });

  const certificate = loopbackCertificate();
  it.skipIf(!certificate)("from https down to http: not followed, even to the same host and port", async () => {
    const secure = await Upstream.start({ tls: certificate! });
    const plain = await Upstream.start();
    plain.on("GET", /.*/, echo());
    try {
      const dispatcher = new Agent({ connect: { ca: certificate!.cert } });
      const catalog = await loadCatalog(spec, { baseUrl: `${secure.url}/v1` });
      const engine = new Engine({ catalog, env: canaryEnv(), dispatcher, retryDelaysMs: [5] });
      const client = await connectProvider(engine);
      try {
        secure.on("GET", "/v1/anything/fine", echo());
        secure.on(
          "GET",
          "/v1/anything/down",
          ({ res }) =>
            void res.writeHead(302, { location: `${plain.url}/v1/anything/fine`, "content-length": 0 }).end(),
        );
        secure.on(
          "GET",
          "/v1/anything/same",
          ({ res }) =>
            void res
              .writeHead(301, { location: `http://127.0.0.1:${secure.port}/v1/anything/fine`, "content-length": 0 })
              .end(),
        );
        secure.on(
          "GET",
          "/v1/anything/hop",
          ({ res }) => void res.writeHead(302, { location: "/v1/anything/fine", "content-length": 0 }).end(),
        );
        // An https same-origin redirect is followed, the key going along.
        const fine = await attempt("getAnything", { name: "hop" }, client.client);
        expect(fine.isError ?? false, textOf(fine)).toBe(false);
        expect(secure.requests.map((r) => r.path)).toEqual(["/v1/anything/hop", "/v1/anything/fine"]);
        for (const name of ["down", "same"]) {
          expectRefused(await attempt("getAnything", { name }, client.client), "redirected to another origin");
        }
        expect(plain.requests).toEqual([]);
        expect(secure.requests.map((r) => r.path)).toEqual([
          "/v1/anything/hop",
          "/v1/anything/fine",
          "/v1/anything/down",
          "/v1/anything/same",
        ]);
      } finally {
        await client.close();
        await dispatcher.close();
      }
    } finally {
      await Promise.all([secure.close(), plain.close()]);
    }
  });
});

describe("an external $ref to a local file, from a spec fetched from a URL", () => {
  const MARKER = "LOCAL-FILE-MARKER-51c9";

  it("is refused, and the local file is never opened (a FIFO nobody opened, a marker nowhere)", async () => {
    const root = join(temp.dir, "refs");
    mkdirSync(join(root, "served"), { recursive: true });
    mkdirSync(join(root, "outside"), { recursive: true });
    const secret = writeFile(
      join(root, "outside"),
      "secret.yaml",
      `Thing:\n  type: object\n  description: ${MARKER}\n`,
    );
    const fifo = join(root, "outside", "fifo.yaml");
    execFileSync("mkfifo", [fifo]);
    const document = {
      openapi: "3.0.3",
      info: { title: "Remote", version: "1" },
      servers: [{ url: `${api.url}/v1` }],
      paths: {
        "/a": {
          get: {
            operationId: "a",
            responses: {
              "200": {
                description: "a",
                content: { "application/json": { schema: { $ref: `file://${secret}#/Thing` } } },
              },
            },
          },
        },
        "/b": {
          get: {
            operationId: "b",
            responses: {
              "200": {
                description: "b",
                content: { "application/json": { schema: { $ref: `file://${fifo}#/Thing` } } },
              },
            },
          },
        },
        "/c": {
          get: {
            operationId: "c",
            responses: {
              "200": {
                description: "c",
                content: { "application/json": { schema: { $ref: "../outside/secret.yaml#/Thing" } } },
              },
            },
          },
        },
        "/d": {
          get: {
            operationId: "d",
            responses: {
              "200": { description: "d", content: { "application/json": { schema: { $ref: `${secret}#/Thing` } } } },
            },
          },
        },
        "/e": {
          get: {
            operationId: "e",
            responses: {
              "200": {
                description: "e",
                content: { "application/json": { schema: { $ref: `${evil.url}/schema.yaml` } } },
              },
            },
          },
        },
      },
    };
    writeFile(join(root, "served"), "spec.json", document);
    const site = await serveDirectory(join(root, "served"));
    try {
      const url = `${site.url}spec.json`;
      // Even with the local directory allowed: a spec from a URL never reads local files.
      for (const allowRefs of [[], [join(root, "outside")]]) {
        const loading = loadCatalog(url, { allowRefs });
        const error = await Promise.race([
          rejection(loading),
          new Promise<Error>((_, reject) =>
            setTimeout(() => reject(new Error("the load hung: a FIFO was opened")), 5_000),
          ),
        ]);
        expect(isUserError(error)).toBe(true);
        expect((error as Error & { code?: string }).code).toBe("E_REF_NOT_ALLOWED");
        for (const pointer of ["~1a", "~1b", "~1c", "~1d", "~1e"])
          expect(error.message).toContain(`#/paths/${pointer}/get`);
        expect(error.message).not.toContain(MARKER);
      }
      // Nobody holds the FIFO open for reading: opening it to write without blocking fails with ENXIO.
      let code: string | undefined;
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch (error) {
        code = (error as NodeJS.ErrnoException).code;
      }
      expect(code).toBe("ENXIO");
      // The refs resolved against the URL were not fetched either: only the spec itself was.
      expect(site.requests).toEqual(["/spec.json", "/spec.json"]);
      expect(evil.requests).toEqual([]);

      // The same from the command line: serve and inspect refuse to start, saying why, with no stack trace.
      const [served, inspected] = await Promise.all([runCli(["serve", url]), runCli(["inspect", url])]);
      for (const run of [served, inspected]) {
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("external references that are not allowed");
        expect(run.stderr).not.toContain(MARKER);
        expect(run.stderr).not.toMatch(/^\s+at /m);
      }
    } finally {
      await site.close();
    }
  });
});

describe("oversized arguments", () => {
  const FIVE_MB = "a".repeat(5 * 1024 * 1024);

  it("a 5 MB string in any argument is refused before anything is sent, and the server goes on", async () => {
    for (const args of [
      { name: FIVE_MB },
      { name: "x", q: FIVE_MB },
      { name: "x", "X-Trace": FIVE_MB },
      { name: "x", pref: FIVE_MB },
    ]) {
      const requests = await during(async () => {
        const result = await attempt("getAnything", args);
        expectRefused(result, "too big (more than 4194304 bytes)", "Nothing was sent");
      });
      expect(requests).toEqual([]);
    }
    const requests = await during(async () =>
      expectRefused(await attempt("postAnything", { name: "x", body: { blob: FIVE_MB } }), "Nothing was sent"),
    );
    expect(requests).toEqual([]);
    // Still answering.
    const after = await attempt("getAnything", { name: "after" });
    expect(after.isError ?? false).toBe(false);
    // The audit line for it is bounded.
    const line = JSON.stringify(
      audit.records.find(
        (r) =>
          r.outcome === "invalid_arguments" && typeof r.arguments.name === "string" && r.arguments.name.length > 100,
      ),
    );
    expect(line.length).toBeLessThan(2_000);
  });

  it("a 1 MB argument: the approval prompt and the audit line stay small", async () => {
    const big = "b".repeat(1024 * 1024);
    const declined: string[] = [];
    const engine = new Engine({ catalog: await loadCatalog(spec), env: canaryEnv(), audit });
    const client = await connectProvider(engine, {
      elicit: (message) => {
        declined.push(message);
        return { action: "decline" };
      },
    });
    try {
      const requests = await during(async () =>
        expectRefused(await attempt("delete_header", { scenario: big }, client.client), "declined"),
      );
      expect(requests).toEqual([]);
      expect(declined).toHaveLength(1);
      expect(audit.records.at(-1)?.outcome).toBe("not_approved");
      // The argument is cut in both; the URL it is part of must be too.
      expect(declined[0]).toContain("more characters not shown");
      const sizes = { prompt: declined[0]!.length, auditLine: JSON.stringify(audit.records.at(-1)).length };
      expect(sizes.prompt < 10_000 && sizes.auditLine < 10_000, JSON.stringify(sizes)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("over stdio (the built CLI): the 5 MB call is an error result, and the same process answers the next call", async () => {
    const server = await serveOverStdio([spec], { env: canaryEnv() });
    try {
      const requests = await during(async () =>
        expectRefused(
          await attempt("getAnything", { name: FIVE_MB }, server.client),
          "too big (more than 4194304 bytes)",
          "Nothing was sent",
        ),
      );
      expect(requests).toEqual([]);
      const after = await attempt("getAnything", { name: "after-stdio" }, server.client);
      expect(after.isError ?? false, textOf(after)).toBe(false);
    } finally {
      await server.close();
    }
    expect(server.stderr()).not.toMatch(/^\s+at /m);
  });

  it("over streamable HTTP: the 5 MB call is refused (HTTP 413), nothing is sent, the server goes on", async () => {
    const running = await serve(spec, { transport: "http", port: 0, env: canaryEnv(), log: () => {} });
    const client = new Client({ name: "guard-http", version: "0.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
      const requests = await during(async () => {
        const error = await client.callTool({ name: "getAnything", arguments: { name: FIVE_MB } }).then(
          (result) => new Error(`resolved: ${textOf(result)}`),
          (rejected: unknown) => rejected as Error,
        );
        expect(error).toBeInstanceOf(Error);
        expect(error.message).toMatch(/413|Payload Too Large/);
      });
      expect(requests).toEqual([]);
      // A new request on the same session is answered.
      const after = (await client.callTool({ name: "getAnything", arguments: { name: "after-http" } })) as Result;
      expect(after.isError ?? false, textOf(after)).toBe(false);
    } finally {
      await client.close();
      await running.close();
    }
  });
});

describe("10,000 rapid calls against a rate limit", () => {
  it("never more than N requests reach the upstream in any window of W; the rest are told when to retry", async () => {
    const limited = await Upstream.start();
    const arrivals: number[] = [];
    limited.on("GET", "/rl/ping", ({ res }) => {
      arrivals.push(performance.now());
      res.writeHead(200, { "content-type": "application/json" }).end('{"pong":true}');
    });
    // A tool limit of 5 per 200 ms inside a source limit of 8 per 500 ms.
    const TOOL = { requests: 5, windowMs: 200 };
    const SOURCE = { requests: 8, windowMs: 500 };
    const definition = {
      name: "limited",
      baseUrl: `${limited.url}/rl`,
      rateLimit: { requests: SOURCE.requests, windowSeconds: SOURCE.windowMs / 1000 },
      actions: [
        {
          name: "ping",
          description: "Ping.",
          method: "GET",
          path: "/ping",
          rateLimit: { requests: TOOL.requests, windowSeconds: TOOL.windowMs / 1000 },
        },
      ],
    };
    const file = writeFile(temp.dir, "limited.actions.json", definition);
    // The moment the engine hands each request to the HTTP client: the limiter's own guarantee, before the network.
    const sent: number[] = [];
    const agent = new Agent();
    const dispatcher = {
      request: (options: Dispatcher.RequestOptions) => {
        sent.push(performance.now());
        return agent.request(options);
      },
    } as unknown as Dispatcher;
    // Bursts of 500 would mostly wait for, or be refused, a slot among the calls in flight (in-flight.test.ts):
    // raised here, so what refuses is the rate limit this test is about.
    const engine = new Engine({
      catalog: await loadCatalog(file),
      dispatcher,
      maxInFlight: 1_000,
      maxInFlightPerPrincipal: 1_000,
      maxQueued: 1_000,
    });
    const client = await connectProvider(engine);
    const results: Result[] = [];
    // How long the process was held up at worst (descheduled, or in a collection): a request admitted just before
    // such a pause reaches the HTTP client that much later, so the measured windows may shrink by as much.
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const started = performance.now();
    try {
      for (let burst = 0; burst < 20; burst++) {
        const calls = Array.from(
          { length: 500 },
          () => client.client.callTool({ name: "ping", arguments: {} }) as Promise<Result>,
        );
        results.push(...(await Promise.all(calls)));
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    } finally {
      lag.disable();
      await client.close();
      await agent.close();
      await limited.close();
    }
    const pause = lag.max / 1e6;
    const elapsed = performance.now() - started;
    expect(results).toHaveLength(10_000);
    const admitted = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    expect(admitted.length).toBe(arrivals.length);
    expect(sent.length).toBe(arrivals.length);
    expect(admitted.length).toBeGreaterThanOrEqual(TOOL.requests);
    // Upper bound from the source limit over the whole run.
    expect(admitted.length).toBeLessThanOrEqual(SOURCE.requests * Math.ceil(elapsed / SOURCE.windowMs + 1));
    for (const result of refused)
      expect(textOf(result)).toMatch(/rate limit .* is reached\. Try again in \d+ (ms|s)\./);

    // Every sliding window: any N+1 consecutive requests span at least W. Handed to the HTTP client: within 5 ms (a
    // request is admitted, then reaches the client a few awaits later, and on a busy machine those steps take
    // longer for one request than for another) plus the longest pause of the process; arriving at the upstream:
    // within 25 ms of loopback jitter too.
    const widest = (times: number[], n: number): number => {
      let shortest = Number.POSITIVE_INFINITY;
      for (let i = 0; i + n < times.length; i++) shortest = Math.min(shortest, times[i + n]! - times[i]!);
      return shortest;
    };
    for (const [times, slack] of [
      [sent, 5 + pause],
      [[...arrivals].sort((a, b) => a - b), 25 + pause],
    ] as const) {
      expect(widest(times, TOOL.requests)).toBeGreaterThanOrEqual(TOOL.windowMs - slack);
      expect(widest(times, SOURCE.requests)).toBeGreaterThanOrEqual(SOURCE.windowMs - slack);
    }
  });
});

describe("nothing leaks", () => {
  it("no result of the attack set shows the canary in any form", () => {
    expect(shown.length).toBeGreaterThan(50);
    const forms = forbiddenForms();
    const leaks = shown.filter(({ text }) => leaksIn(text, forms).length > 0).map(({ what }) => what);
    expect(leaks).toEqual([]);
    for (const record of audit.records) expect(leaksIn(JSON.stringify(record), forms)).toEqual([]);
  });

  it("every failure was a tool result: no attack turned into a JSON-RPC error", () => {
    expect(shown.filter((s) => s.what.endsWith("(JSON-RPC error)"))).toEqual([]);
  });
});
