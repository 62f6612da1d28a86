// In-flight bounds (issue 14, item 4), on the real engine against a real upstream on 127.0.0.1: calls in flight
// are capped per origin and per caller, the rest wait in a bounded queue with a timeout, and past those a call is
// told which limit held it and to try again later, nothing sent. One caller's flood does not hold another back.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpenAPI } from "openapi-types";
import { afterEach, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { readSettings } from "../../src/load/settings.js";
import { withSettings } from "../../src/runtime/settings.js";
import { startEngine } from "../../src/runtime/start.js";
import { memoryAuditLog } from "../../src/runtime/audit/audit.js";
import { Engine } from "../../src/runtime/engine.js";
import type { EngineOptions } from "../../src/runtime/engine-options.js";
import type { CallContext, ToolResult } from "../../src/runtime/types.js";
import { type BusyUpstream, busyUpstream, SLOW_API } from "../support/busy-upstream.js";

const opened: BusyUpstream[] = [];
afterEach(async () => {
  for (const { api } of opened.splice(0)) await api.close();
});

async function setUp(
  upstream: { delayMs: number; capacity?: number },
  options: Partial<EngineOptions> = {},
): Promise<{ busy: BusyUpstream; engine: Engine; audit: ReturnType<typeof memoryAuditLog> }> {
  const busy = await busyUpstream(upstream);
  opened.push(busy);
  const catalog = await loadCatalog({ document: SLOW_API as OpenAPI.Document }, { baseUrl: busy.api.url });
  const audit = memoryAuditLog();
  const engine = new Engine({ catalog, env: {}, retryDelaysMs: [], audit, ...options });
  return { busy, engine, audit };
}

const as = (principal: string): CallContext => ({ caller: { principal, claims: {}, headers: {} } });
const textOf = (result: ToolResult): string => result.content.map((c) => ("text" in c ? c.text : "")).join("");
const refused = (results: ToolResult[]) => results.filter((r) => r.isError);
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("calls in flight", () => {
  it("2,000 concurrent calls from one caller: at most 8 reach the upstream at once, 64 wait, the rest are told to retry later", async () => {
    const { busy, engine, audit } = await setUp({ delayMs: 300 });
    const results = await Promise.all(Array.from({ length: 2_000 }, () => engine.callTool("slow", {})));
    expect(busy.seen.peak).toBeLessThanOrEqual(8);
    // The pool may open a connection before it sees that one just finished is free: a few, not thousands.
    expect(busy.seen.peakConnections).toBeLessThanOrEqual(2 * 8);
    expect(busy.seen.requests).toBe(8 + 64);
    const no = refused(results);
    expect(no).toHaveLength(2_000 - 72);
    expect(textOf(no[0]!)).toBe(
      `slow was not sent: the limit of 8 calls in flight per caller to ${busy.api.url} is reached and 64 more of your calls are already waiting there (the queue's bound). Nothing was sent; try again later, when fewer of your calls are in flight.`,
    );
    expect(audit.records.filter((r) => r.outcome === "queue_full")).toHaveLength(2_000 - 72);
    expect(audit.records.filter((r) => r.outcome === "ok")).toHaveLength(72);
  }, 30_000);

  it("2,000 concurrent calls from 100 callers: at most 32 reach the upstream at once, and all are answered", async () => {
    const { busy, engine } = await setUp({ delayMs: 40 });
    const results = await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => engine.callTool("slow", {}, as(`caller-${i % 100}`))),
    );
    expect(busy.seen.peak).toBeLessThanOrEqual(32);
    expect(busy.seen.peakConnections).toBeLessThanOrEqual(2 * 32);
    expect(refused(results)).toEqual([]);
    expect(busy.seen.requests).toBe(2_000);
  }, 30_000);

  it("a call that waits past the queue timeout is refused, saying which limit held it; nothing is sent", async () => {
    const { busy, engine, audit } = await setUp(
      { delayMs: 1_000 },
      { maxInFlightPerPrincipal: 1, queueTimeoutMs: 100 },
    );
    const first = engine.callTool("slow", {});
    const second = await engine.callTool("slow", {});
    expect(second.isError).toBe(true);
    expect(textOf(second)).toBe(
      `slow was not sent: it waited 100 ms (the queue timeout) for a slot under the limit of 1 calls in flight per caller to ${busy.api.url}, and none came free. Nothing was sent; try again later.`,
    );
    expect((await first).isError).toBeFalsy();
    expect(busy.seen.requests).toBe(1);
    expect(audit.records.map((r) => r.outcome).sort()).toEqual(["ok", "queue_timeout"]);
  });

  it("a cancelled call leaves the queue at once, sends nothing, and the next call takes its place", async () => {
    const { busy, engine, audit } = await setUp({ delayMs: 2_000 }, { maxInFlightPerPrincipal: 1 });
    let firstEnded = false;
    const first = engine.callTool("slow", {}).finally(() => {
      firstEnded = true;
    });
    const controller = new AbortController();
    const cancelled = engine.callTool("slow", {}, { signal: controller.signal });
    const third = engine.callTool("slow", {});
    // Cancelled once the first call holds the only slot at the upstream, so the second is surely queued.
    await expect.poll(() => busy.seen.requests).toBe(1);
    controller.abort();
    const result = await cancelled;
    // Answered while the first call is still at the upstream, which a call still queued would wait for.
    expect(firstEnded).toBe(false);
    expect(textOf(result)).toMatch(/^slow was cancelled while it waited for its turn to call .*\. Nothing was sent\.$/);
    expect(busy.seen.requests).toBe(1);
    expect((await first).isError).toBeFalsy();
    expect((await third).isError).toBeFalsy();
    expect(busy.seen.requests).toBe(2);
    expect(audit.records.map((r) => r.outcome)).toEqual(["cancelled", "ok", "ok"]);
  });

  it("a flood from one caller does not hold another back: its p50 stays within 2× of its quiet value", async () => {
    // The API serves 4 at a time; the operator lets one caller use all of it when alone.
    const { engine } = await setUp({ delayMs: 40, capacity: 4 }, { maxInFlight: 4, maxInFlightPerPrincipal: 4 });
    const steady = async (): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 25; i++) {
        const started = performance.now();
        const result = await engine.callTool("slow", {}, as("steady"));
        expect(result.isError).toBeFalsy();
        times.push(performance.now() - started);
      }
      return median(times);
    };
    await steady();
    const quiet = await steady();
    let flooding = true;
    const noisy = async (): Promise<void> => {
      while (flooding) await engine.callTool("slow", {}, as("noisy"));
    };
    // 60 calls kept outstanding (4 in flight, 56 waiting; none refused), for as long as the steady caller measures.
    const flood = Array.from({ length: 60 }, noisy);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const flooded = await steady();
    flooding = false;
    await Promise.all(flood);
    expect(flooded).toBeLessThanOrEqual(2 * quiet);
  }, 30_000);
});

describe("in-flight limits are set", () => {
  it("per source, in settings (inFlight.sources), over the engine's", async () => {
    const { busy, engine } = await setUp(
      { delayMs: 200 },
      { maxInFlightPerPrincipal: 6, inFlight: { sources: { default: { maxInFlightPerPrincipal: 2, maxQueued: 3 } } } },
    );
    const results = await Promise.all(Array.from({ length: 20 }, () => engine.callTool("slow", {})));
    expect(busy.seen.peak).toBe(2);
    expect(busy.seen.requests).toBe(5);
    expect(textOf(refused(results)[0]!)).toContain("the limit of 2 calls in flight per caller");
  });

  it("per caller, by the engine's inFlightFor (a profile's), never past the origin's limit", async () => {
    const { busy, engine } = await setUp(
      { delayMs: 200 },
      {
        maxInFlight: 5,
        inFlightFor: (caller) =>
          caller?.principal === "batch" ? { maxInFlightPerPrincipal: 50, maxQueued: 1 } : undefined,
      },
    );
    const results = await Promise.all(Array.from({ length: 20 }, () => engine.callTool("slow", {}, as("batch"))));
    expect(busy.seen.peak).toBe(5);
    expect(busy.seen.requests).toBe(6);
    expect(textOf(refused(results)[0]!)).toContain("the limit of 5 calls in flight to");
  });

  it("per caller, by its profile's inFlight, one origin limit across every profile", async () => {
    const { busy, engine } = await setUp({ delayMs: 200 }, { maxInFlight: 5 });
    const all = () => true;
    const small = engine.withProfile({
      name: "small",
      tools: all,
      inFlight: { maxInFlightPerPrincipal: 2, maxQueued: 1 },
    });
    const big = engine.withProfile({ name: "big", tools: all, inFlight: { maxInFlightPerPrincipal: 50 } });
    const fromSmall = await Promise.all(Array.from({ length: 6 }, () => small.callTool("slow", {}, as("s"))));
    expect(busy.seen.peak).toBe(2);
    expect(textOf(refused(fromSmall)[0]!)).toContain("the limit of 2 calls in flight per caller");
    // Two profiles' engines share the origin's limit: 5 at once, however many each may send.
    await Promise.all([
      ...Array.from({ length: 8 }, () => big.callTool("slow", {}, as("b1"))),
      ...Array.from({ length: 8 }, () =>
        engine.withProfile({ name: "other", tools: all }).callTool("slow", {}, as("b2")),
      ),
    ]);
    expect(busy.seen.peak).toBe(5);
  });

  it("in a settings file, as serve and generated servers read it: top-level, and per source", async () => {
    const busy = await busyUpstream({ delayMs: 200 });
    opened.push(busy);
    const dir = mkdtempSync(join(tmpdir(), "in-flight-"));
    try {
      const file = join(dir, "settings.yaml");
      writeFileSync(file, "maxQueued: 2\ninFlight:\n  sources:\n    default: { maxInFlightPerPrincipal: 3 }\n");
      const catalog = await loadCatalog({ document: SLOW_API as OpenAPI.Document }, { baseUrl: busy.api.url });
      const engine = startEngine({
        catalog,
        env: {},
        log: () => {},
        ...withSettings({ settings: await readSettings(file), given: {} }),
      });
      await Promise.all(Array.from({ length: 10 }, () => engine.callTool("slow", {})));
      expect(busy.seen.peak).toBe(3);
      expect(busy.seen.requests).toBe(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("per source, in a manifest entry's inFlight", async () => {
    const busy = await busyUpstream({ delayMs: 200 });
    opened.push(busy);
    const dir = mkdtempSync(join(tmpdir(), "in-flight-"));
    try {
      writeFileSync(join(dir, "slow.json"), JSON.stringify(SLOW_API));
      const manifest = join(dir, "apis.manifest.yaml");
      writeFileSync(
        manifest,
        `sources:\n  - id: slow\n    source: slow.json\n    baseUrl: ${busy.api.url}\n    inFlight: { maxInFlightPerPrincipal: 2, maxQueued: 1 }\n`,
      );
      const catalog = await loadCatalog(manifest);
      const engine = new Engine({ catalog, env: {}, retryDelaysMs: [] });
      const tool = catalog.tools[0]!.name;
      const results = await Promise.all(Array.from({ length: 10 }, () => engine.callTool(tool, {})));
      expect(busy.seen.peak).toBe(2);
      expect(busy.seen.requests).toBe(3);
      expect(refused(results)).toHaveLength(7);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
