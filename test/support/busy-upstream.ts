// An upstream on 127.0.0.1 that answers every request after `delayMs`, serving at most `capacity` at a time (the
// rest wait at it, first come first served, as a real API's worker pool would make them), and counts what it
// sees: requests in progress at once and connections open at once, at their peaks.

import type { Reply } from "./upstream.js";
import { json, Upstream } from "./upstream.js";

export interface BusyUpstream {
  api: Upstream;
  /** Peaks and counts so far. */
  seen: { requests: number; active: number; peak: number; peakConnections: number };
}

export async function busyUpstream({
  delayMs,
  capacity = Number.POSITIVE_INFINITY,
  path = "/slow",
}: {
  delayMs: number;
  capacity?: number;
  path?: string;
}): Promise<BusyUpstream> {
  const api = await Upstream.start();
  const seen = { requests: 0, active: 0, peak: 0, peakConnections: 0 };
  const waiting: Array<() => void> = [];
  let serving = 0;
  const answer = json({ ok: true });
  const reply: Reply = (context) => {
    seen.requests++;
    seen.active++;
    seen.peak = Math.max(seen.peak, seen.active);
    seen.peakConnections = Math.max(seen.peakConnections, api.openConnections);
    context.res.on("close", () => seen.active--);
    const serve = (): void => {
      serving++;
      setTimeout(() => {
        if (!context.res.destroyed) void answer(context);
        serving--;
        waiting.shift()?.();
      }, delayMs);
    };
    if (serving < capacity) serve();
    else waiting.push(serve);
  };
  api.on("GET", path, reply);
  return { api, seen };
}

/** An OpenAPI document with one operation, GET /slow (`slow`), no security. */
export const SLOW_API = {
  openapi: "3.0.3",
  info: { title: "slow", version: "1" },
  paths: { "/slow": { get: { operationId: "slow", responses: { "200": { description: "ok" } } } } },
};
