// Hot reload under load (issue 18): 1,000 calls in flight from a real SDK client while the registry's source
// changes 20 times. The upstream holds every request until all 1,000 calls are in flight and the 20 changes are
// published, then answers each with the version in its path; so every call is in flight across many publishes.
// Every call must complete: a call to the stable tool with the version of a catalog that was serving between the
// moment it was sent and the moment it was answered (one catalog per call, never a mix, never lost); a call to
// the tool that comes and goes either so, or refused as unknown because a catalog without it was serving then.

import { describe, expect, it, onTestFinished } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { ServeOptions } from "../../src/app/serve-options.js";
import { Upstream } from "../support/upstream.js";
import { actions, httpClient, registryDir, resultJson, save } from "./support.js";

const CALLS = 1_000;
const CHANGES = 20;

/** Version k of the source: `echo` always, `extra` in odd versions only. */
function tools(k: number): string[] {
  return k % 2 === 1 ? ["echo", "extra"] : ["echo"];
}

describe("hot reload under load", () => {
  it("completes 1,000 calls in flight across 20 publishes, each on one catalog", { timeout: 120_000 }, async () => {
    const { dir, remove } = registryDir();
    onTestFinished(remove);
    let release = (): void => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const upstream = await Upstream.start();
    onTestFinished(() => upstream.close());
    upstream.on("GET", /^\/v\d+\//, async ({ req, res }) => {
      await released;
      const [, version, tool] = /^\/v(\d+)\/([^/?]+)/.exec(req.url ?? "") ?? [];
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ version: Number(version), tool }));
    });
    const source = (k: number) => actions({ name: "stable", baseUrl: upstream.url, version: k, tools: tools(k) });
    save({ dir, file: "stable.actions.yaml", text: source(1) });
    const limits = { maxInFlight: CALLS, maxInFlightPerPrincipal: CALLS, maxQueued: CALLS };
    const running = await serve([], {
      registry: dir,
      transport: "http",
      port: 0,
      log: () => {},
      ...limits,
    } as ServeOptions);
    onTestFinished(() => running.close());
    const registry = running.registry!;
    const { client } = await httpClient(running.url!);
    onTestFinished(() => client.close());

    const version = () => registry.status().version;
    const outcomes: Array<Promise<{ tool: string; from: number; to: number; result?: unknown; error?: string }>> = [];
    let refused = 0;
    const send = (tool: string): void => {
      const from = version();
      outcomes.push(
        client.callTool({ name: `stable__${tool}`, arguments: {} }, undefined, { timeout: 110_000 }).then(
          (result) => ({ tool, from, to: version(), result }),
          (error: Error) => {
            refused++;
            return { tool, from, to: version(), error: error.message };
          },
        ),
      );
    };
    const perChange = CALLS / CHANGES;
    for (let k = 2; k <= CHANGES + 1; k++) {
      for (let i = 0; i < perChange; i++) send(i % 3 === 0 ? "extra" : "echo");
      save({ dir, file: "stable.actions.yaml", text: source(k) });
      const deadline = Date.now() + 30_000;
      while (version() < k && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(version()).toBe(k);
    }
    // Every call is in flight (held at the upstream) or was refused by name before the upstream was released.
    const deadline = Date.now() + 60_000;
    while (upstream.requests.length + refused < CALLS && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(upstream.requests.length + refused).toBe(CALLS);
    release();
    const settled = await Promise.all(outcomes);

    expect(settled).toHaveLength(CALLS);
    for (const outcome of settled) {
      if (outcome.error !== undefined) {
        expect(outcome.tool).toBe("extra");
        expect(outcome.error).toMatch(/Unknown tool: stable__extra/);
        // Refused only if a catalog without the tool served while the call was being sent.
        const absent = Array.from({ length: outcome.to - outcome.from + 1 }, (_, i) => outcome.from + i).some(
          (k) => !tools(k).includes("extra"),
        );
        expect(absent).toBe(true);
        continue;
      }
      const answer = resultJson(outcome.result);
      expect(answer.tool).toBe(outcome.tool);
      expect(answer.version).toBeGreaterThanOrEqual(outcome.from);
      expect(answer.version).toBeLessThanOrEqual(outcome.to);
      expect(tools(answer.version)).toContain(outcome.tool);
    }
    const echoes = settled.filter((o) => o.tool === "echo");
    expect(echoes.every((o) => o.error === undefined)).toBe(true);
    // The calls did span the publishes: answers came from many versions.
    const versions = new Set(settled.flatMap((o) => (o.result ? [resultJson(o.result).version] : [])));
    expect(versions.size).toBeGreaterThanOrEqual(CHANGES / 2);
  });
});
