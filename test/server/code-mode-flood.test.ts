// Code mode under one caller's flood (wave 3, finding 6), with the real engine, the real sandbox (QuickJS workers,
// a pool of two here, as on a two-core host) and a real upstream on 127.0.0.1. Over HTTP, two static-token callers:
// A keeps spinning scripts queued while B's `return 1` is answered near its quiet time, ahead of A's queue. In
// process: A's 1,500 maximum-size executes are refused past its queue's bytes and the heap holds only those; each
// execute takes one of its caller's in-flight slots (a third waits, a fourth is refused), in a count of its own, so
// its api calls still get their slots at the upstream (no deadlock).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OpenAPI } from "openapi-types";
import { afterEach, expect, it, onTestFinished, vi } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { CodeProvider } from "../../src/runtime/modes/code-mode.js";
import type { CallerInFlight, EngineOptions } from "../../src/runtime/engine-options.js";
import { Engine } from "../../src/runtime/engine.js";
import { SandboxPool } from "../../src/runtime/modes/sandbox/pool.js";
import { runScript } from "../../src/runtime/modes/sandbox/run-script.js";
import type { Caller, ToolResult } from "../../src/runtime/types.js";
import { serveHttp } from "../../src/server/http.js";
import { forcedGc } from "../support/gc.js";
import { json, type Reply, Upstream } from "../support/upstream.js";
import { SLOW_API } from "../support/busy-upstream.js";

const A = "code-flood-test-token-a-0123456789";
const B = "code-flood-test-token-b-9876543210";
const SPIN = "for (;;) {}";

afterEach(() => {
  vi.unstubAllEnvs();
});

const median = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
const textOf = (result: unknown): string => (result as ToolResult).content.find((c) => c.type === "text")?.text ?? "";

/** An upstream whose GET /slow answers once `release()` is called; it notes whether each request came after. */
async function heldUpstream() {
  const api = await Upstream.start();
  onTestFinished(() => api.close());
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const afterRelease: boolean[] = [];
  let released = false;
  const reply: Reply = async (context) => {
    afterRelease.push(released);
    await held;
    await json({ ok: true })(context);
  };
  api.on("GET", "/slow", reply);
  return {
    api,
    afterRelease,
    release: () => {
      released = true;
      release();
    },
  };
}

/** The engine over SLOW_API at `url`, and code mode over it on its own pool of `workers`. */
async function codeMode({
  url,
  workers = 2,
  engine: options = {},
  profile,
  limits = {},
}: {
  url: string;
  workers?: number;
  engine?: Partial<EngineOptions>;
  /** A profile's own in-flight limits, served through its view of the engine. */
  profile?: CallerInFlight;
  limits?: ConstructorParameters<typeof CodeProvider>[0]["limits"];
}) {
  const catalog = await loadCatalog({ document: SLOW_API as OpenAPI.Document }, { baseUrl: url });
  const server = new Engine({ catalog, env: {}, retryDelaysMs: [], ...options });
  const engine = profile ? server.withProfile({ name: "team", tools: () => true, inFlight: profile }) : server;
  const pool = new SandboxPool({ size: workers });
  const provider = new CodeProvider({ engine, catalog, limits, runScript: (run) => runScript(run, pool) });
  return { provider, pool };
}

async function client(url: string, token: string): Promise<Client> {
  const connected = new Client({ name: "code-flood", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await connected.connect(transport);
  onTestFinished(() => connected.close());
  return connected;
}

it("A keeps spinning scripts queued: B's `return 1` is answered ahead of A's queue, near its quiet time", async () => {
  const upstream = await heldUpstream();
  upstream.release();
  // Each of A's scripts calls the upstream once, then spins until its CPU limit.
  const { provider, pool } = await codeMode({ url: upstream.api.url, limits: { cpuMs: 1_000 } });
  vi.stubEnv("MCP_CODE_FLOOD_TOKENS", `${A},${B}`);
  const handle = await serveHttp({
    provider,
    name: "code-flood",
    version: "1.0.0",
    port: 0,
    auth: { type: "static", tokenEnv: "MCP_CODE_FLOOD_TOKENS" },
    log: () => {},
  });
  onTestFinished(() => handle.close());
  const [a, b] = [await client(handle.url, A), await client(handle.url, B)];
  const returnOne = async (): Promise<number> => {
    const started = performance.now();
    const result = await b.callTool({ name: "execute", arguments: { code: "return 1;" } });
    expect(textOf(result)).toBe('{"value":1}');
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i++) await returnOne();
  const quiet: number[] = [];
  for (let i = 0; i < 5; i++) quiet.push(await returnOne());

  // A's calls are cancelled at the end (notifications/cancelled): what waits leaves, what runs is stopped.
  const stop = new AbortController();
  let answeredA = 0;
  const keepQueued = async (): Promise<void> => {
    const code = `await api.slow({}); ${SPIN}`;
    while (!stop.signal.aborted) {
      await a.callTool({ name: "execute", arguments: { code } }, undefined, { signal: stop.signal }).catch(() => {});
      answeredA++;
    }
  };
  const flood = Array.from({ length: 12 }, () => keepQueued());
  await upstream.api.received(1);
  const before = answeredA;
  const flooded: number[] = [];
  for (let i = 0; i < 5; i++) flooded.push(await returnOne());
  const answeredMeanwhile = answeredA - before;
  stop.abort();
  await Promise.all(flood);
  // The server's side of A's cancelled calls ends too (else closing the server waits for them).
  for (let i = 0; i < 100 && pool.running() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));

  // Before: B waited behind A's queue of 12 (a round of A's scripts answered per B's call, ~6 s each).
  expect(answeredMeanwhile).toBeLessThan(12);
  expect(median(flooded)).toBeLessThan(10 * median(quiet));
}, 120_000);

const caller = (principal: string): Caller => ({ principal, claims: {}, headers: {} });

it("A's 1,500 maximum-size executes: all but its queue's bytes are refused at once, and the heap holds only those", async () => {
  const upstream = await heldUpstream();
  const { provider } = await codeMode({ url: upstream.api.url });
  const gc = forcedGc();
  const stop = new AbortController();
  onTestFinished(() => stop.abort());
  const context = { caller: caller("static:a"), signal: stop.signal };
  // 100,000 characters (execute's most), each its own string as a request's body would make it.
  const template = Buffer.from(`${SPIN} /*${"x".repeat(100_000 - SPIN.length - 5)}*/`);
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let refused = 0;
  let message = "";
  const calls = Array.from({ length: 1_500 }, () =>
    provider.callTool("execute", { code: template.toString("latin1") }, context).then((result: ToolResult) => {
      if (!textOf(result).includes('"kind":"busy"')) return;
      refused++;
      message ||= textOf(result);
    }),
  );
  // The refusals come at once; the rest wait (one runs, spinning).
  for (let i = 0; i < 50 && refused < 1_489; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  gc?.();
  const growth = process.memoryUsage().heapUsed - heapBefore;
  stop.abort();
  await Promise.all(calls);

  // One running (a caller's share of two workers) and ten waiting (1 MiB of 100,000-byte scripts).
  expect(refused).toBe(1_489);
  expect(JSON.parse(message)).toEqual({
    error: {
      kind: "busy",
      message:
        "The script was not run: you have 1 script running, the most one caller may run at once, and your queue would hold more than its 1048576 bytes with this script (100000 bytes). Nothing was run; try again later.",
    },
  });
  // Before: all 1,500 were accepted and held (150 MB of scripts).
  expect(growth, `heap grew by ${(growth / 2 ** 20).toFixed(1)} MiB`).toBeLessThan((gc ? 16 : 40) * 2 ** 20);
}, 60_000);

it("each execute takes one of its caller's in-flight slots: a third waits, a fourth is refused; api calls still go", async () => {
  const upstream = await heldUpstream();
  // Four workers: A's in-flight limit (2), not the workers, is what holds its third script.
  const { provider } = await codeMode({
    url: upstream.api.url,
    workers: 4,
    engine: { maxInFlightPerPrincipal: 2, maxQueued: 1 },
  });
  const a = { caller: caller("static:a") };
  const script = "return await api.slow({});";
  const first = [1, 2].map(() => provider.callTool("execute", { code: script }, a));
  // Both run, and their api calls get the caller's two slots at the upstream: a count apart from the scripts'.
  await upstream.api.received(2);
  const third = provider.callTool("execute", { code: script }, a);
  const fourth = await provider.callTool("execute", { code: script }, a);
  expect(JSON.parse(textOf(fourth))).toEqual({
    error: {
      kind: "busy",
      message:
        "The script was not run: you have 2 scripts running, the most one caller may run at once, and your queue is full (its bound: 1 waiting). Nothing was run; try again later.",
    },
  });
  // Another caller runs at once: a worker was free while A's third waited.
  const other = await provider.callTool("execute", { code: "return 2;" }, { caller: caller("static:b") });
  expect(textOf(other)).toBe('{"value":2}');
  upstream.release();
  const results = await Promise.all([...first, third]);
  expect(results.map(textOf)).toEqual(Array(3).fill('{"value":{"ok":true},"calls":["slow"]}'));
  // The third script ran only once one of the first two had ended.
  expect(upstream.afterRelease).toEqual([false, false, true]);
}, 60_000);

it("a profile's inFlight lowers its callers' share: with 1 in flight and 1 queued, a second waits, a third is refused", async () => {
  const upstream = await heldUpstream();
  const { provider } = await codeMode({
    url: upstream.api.url,
    workers: 3,
    profile: { maxInFlightPerPrincipal: 1, maxQueued: 1 },
  });
  const a = { caller: caller("static:a") };
  const script = "return await api.slow({});";
  const first = provider.callTool("execute", { code: script }, a);
  await upstream.api.received(1);
  const second = provider.callTool("execute", { code: script }, a);
  const third = await provider.callTool("execute", { code: script }, a);
  expect(JSON.parse(textOf(third)).error.message).toBe(
    "The script was not run: you have 1 script running, the most one caller may run at once, and your queue is full (its bound: 1 waiting). Nothing was run; try again later.",
  );
  upstream.release();
  expect((await Promise.all([first, second])).map(textOf)).toEqual(
    Array(2).fill('{"value":{"ok":true},"calls":["slow"]}'),
  );
  expect(upstream.afterRelease).toEqual([false, true]);
}, 60_000);
