// The sliding-window limiter on an injected clock: given/want tables, a property check against the definition
// ("never more than N admitted in any window of length W", and never refusing what that allows), 10,000 rapid
// calls, atomicity across keys; Retry-After parsing.

import { describe, expect, it } from "vitest";
import type { RateLimit } from "../../src/catalog/types.js";
import {
  PENDING_MS,
  type RateLimitKey,
  RateLimiter,
  rateLimitKeys,
  sourceKey,
  toolKey,
} from "../../src/runtime/limits/rate-limit.js";
import { retryAfterMs } from "../../src/runtime/limits/retry-after.js";

/** What one arrival gets: "ok", or the retry-after in ms of a refusal. */
type Outcome = "ok" | number;

function run(limit: RateLimit, arrivals: number[]): Outcome[] {
  const limiter = new RateLimiter({ clock: () => Number.NaN });
  return arrivals.map((now) => {
    const got = limiter.tryAcquire({ keys: [{ key: "k", limit }], now });
    return got.ok ? "ok" : got.retryAfterMs;
  });
}

describe("RateLimiter: one key", () => {
  const TABLE: Array<{ name: string; limit: RateLimit; arrivals: number[]; want: Outcome[] }> = [
    {
      name: "a burst gets N, then the wait for the first to leave",
      limit: { requests: 2, windowSeconds: 1 },
      arrivals: [0, 0, 0],
      want: ["ok", "ok", 1000],
    },
    {
      name: "the wait shrinks as time passes",
      limit: { requests: 2, windowSeconds: 1 },
      arrivals: [0, 400, 600, 999],
      want: ["ok", "ok", 400, 1],
    },
    {
      name: "exactly one window after the oldest is admitted",
      limit: { requests: 2, windowSeconds: 1 },
      arrivals: [0, 500, 999, 1000, 1499, 1500],
      want: ["ok", "ok", 1, "ok", 1, "ok"],
    },
    {
      name: "refusals are not counted",
      limit: { requests: 1, windowSeconds: 1 },
      arrivals: [0, 100, 900, 1000, 1001],
      want: ["ok", 900, 100, "ok", 999],
    },
    {
      name: "one a second, spaced out, all admitted",
      limit: { requests: 1, windowSeconds: 1 },
      arrivals: [0, 1000, 2000, 3000],
      want: ["ok", "ok", "ok", "ok"],
    },
    {
      name: "a fractional window",
      limit: { requests: 1, windowSeconds: 0.25 },
      arrivals: [0, 249, 250],
      want: ["ok", 1, "ok"],
    },
    {
      name: "a window that is not exact in binary",
      limit: { requests: 1, windowSeconds: 0.007 },
      arrivals: [0, 6, 7],
      want: ["ok", 1, "ok"],
    },
    {
      name: "fractional clock readings round the wait up",
      limit: { requests: 1, windowSeconds: 1 },
      arrivals: [0.5, 0.75],
      want: ["ok", 1000],
    },
    {
      name: "a token bucket's 2N-1 across a window boundary is refused",
      limit: { requests: 3, windowSeconds: 1 },
      arrivals: [900, 950, 999, 1000, 1001, 1002],
      want: ["ok", "ok", "ok", 900, 899, 898],
    },
    {
      name: "a long window",
      limit: { requests: 2, windowSeconds: 3600 },
      arrivals: [0, 1, 3_599_999, 3_600_000, 3_600_001],
      want: ["ok", "ok", 1, "ok", "ok"],
    },
  ];

  it.each(TABLE)("$name", ({ limit, arrivals, want }) => {
    expect(run(limit, arrivals)).toEqual(want);
  });

  it("reads its clock when no time is given", () => {
    let now = 0;
    const limiter = new RateLimiter({ clock: () => now });
    const keys = [{ key: "k", limit: { requests: 1, windowSeconds: 1 } }];
    expect(limiter.tryAcquire({ keys })).toEqual({ ok: true });
    now = 250;
    expect(limiter.tryAcquire({ keys })).toEqual({ ok: false, retryAfterMs: 750, key: "k" });
    now = 1000;
    expect(limiter.tryAcquire({ keys })).toEqual({ ok: true });
  });

  it("uses a monotonic clock by default", () => {
    const limiter = new RateLimiter();
    const keys = [{ key: "k", limit: { requests: 1, windowSeconds: 60 } }];
    expect(limiter.tryAcquire({ keys }).ok).toBe(true);
    const refused = limiter.tryAcquire({ keys });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(59_000);
  });

  it("admits everything when no key is given", () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 100; i++) expect(limiter.tryAcquire({ keys: [], now: 0 })).toEqual({ ok: true });
  });

  it("keeps the most recent times when a key's limit changes", () => {
    const limiter = new RateLimiter();
    const at = (now: number, requests: number) =>
      limiter.tryAcquire({ keys: [{ key: "k", limit: { requests, windowSeconds: 1 } }], now });
    expect([at(0, 3), at(100, 3), at(200, 3)].map((r) => r.ok)).toEqual([true, true, true]);
    // Down to 1: only the request at 200 still counts.
    expect(at(300, 1)).toEqual({ ok: false, retryAfterMs: 900, key: "k" });
    expect(at(1200, 1)).toEqual({ ok: true });
    // Up to 2: one more fits in the window of the one at 1200.
    expect(at(1300, 2)).toEqual({ ok: true });
    expect(at(1400, 2)).toEqual({ ok: false, retryAfterMs: 800, key: "k" });
  });

  it("forgets everything on reset", () => {
    const limiter = new RateLimiter();
    const keys = [{ key: "k", limit: { requests: 1, windowSeconds: 10 } }];
    expect(limiter.tryAcquire({ keys, now: 0 }).ok).toBe(true);
    expect(limiter.tryAcquire({ keys, now: 1 }).ok).toBe(false);
    limiter.reset();
    expect(limiter.tryAcquire({ keys, now: 2 }).ok).toBe(true);
  });

  it("forgets a key once its window has passed, so per-caller keys do not pile up", () => {
    const limiter = new RateLimiter();
    const limit = { requests: 2, windowSeconds: 1 };
    // 5,000 callers, each with its own budget key, once each within a second.
    for (let i = 0; i < 5_000; i++) limiter.tryAcquire({ keys: [{ key: `caller:${i}:calls`, limit }], now: i / 10 });
    expect(limiter.size).toBeGreaterThan(1_000);
    // A second later every one of them is a window old: the next sweep drops them all but the one still in use.
    for (let i = 0; i < 1_100; i++) limiter.tryAcquire({ keys: [{ key: "busy", limit }], now: 2_000 + i * 600 });
    expect(limiter.size).toBeLessThanOrEqual(2);
    // Forgetting changed no answer: a caller seen before starts with its whole budget, as a new one would.
    expect(limiter.tryAcquire({ keys: [{ key: "caller:7:calls", limit }], now: 700_000 }).ok).toBe(true);
  });

  it("keeps a key whose window has not passed, through a sweep", () => {
    const limiter = new RateLimiter();
    const keys = [{ key: "k", limit: { requests: 1, windowSeconds: 10 } }];
    expect(limiter.tryAcquire({ keys, now: 0 }).ok).toBe(true);
    limiter.sweep(5_000);
    expect(limiter.tryAcquire({ keys, now: 5_001 })).toEqual({ ok: false, retryAfterMs: 4_999, key: "k" });
  });

  it.each([
    { requests: 0, windowSeconds: 1 },
    { requests: 1.5, windowSeconds: 1 },
    { requests: -1, windowSeconds: 1 },
    { requests: 1, windowSeconds: 0 },
    { requests: 1, windowSeconds: -1 },
    { requests: 1, windowSeconds: Number.NaN },
    { requests: 1, windowSeconds: Number.POSITIVE_INFINITY },
  ])("refuses the invalid limit %j", (limit) => {
    expect(() => new RateLimiter().tryAcquire({ keys: [{ key: "tool:x", limit }], now: 0 })).toThrow(/tool:x/);
  });
});

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("RateLimiter: the definition holds for random arrivals", () => {
  it("never admits more than N in any window of length W, and never refuses what that would allow", () => {
    let checked = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const requests = 1 + Math.floor(next() * 6);
      const windowMs = 1 + Math.floor(next() * 1000);
      const limit = { requests, windowSeconds: windowMs / 1000 };
      const limiter = new RateLimiter();
      const admitted: number[] = [];
      let now = 0;
      const arrivals = 50 + Math.floor(next() * 400);
      for (let i = 0; i < arrivals; i++) {
        // Bursts (no time passes), short gaps and long pauses.
        const kind = next();
        now +=
          kind < 0.3
            ? 0
            : kind < 0.9
              ? Math.floor(next() * (windowMs / requests) * 2)
              : Math.floor(next() * windowMs * 3);
        const got = limiter.tryAcquire({ keys: [{ key: "k", limit }], now });
        // The reference: admitted iff fewer than N were admitted in (now - W, now].
        const inWindow = admitted.filter((t) => t > now - windowMs).length;
        expect(got.ok, `seed ${seed}, arrival ${i} at ${now}`).toBe(inWindow < requests);
        if (got.ok) admitted.push(now);
        else {
          // The wait it names is exactly when the oldest of those N leaves the window.
          const oldest = admitted.filter((t) => t > now - windowMs)[0]!;
          expect(got.retryAfterMs).toBe(oldest + windowMs - now);
        }
      }
      // Every window [t, t + W) that starts at an admitted request (the fullest windows all do) holds at most N.
      for (const start of admitted) {
        const count = admitted.filter((t) => t >= start && t < start + windowMs).length;
        expect(count, `seed ${seed}, window at ${start}`).toBeLessThanOrEqual(requests);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });
});

describe("RateLimiter: 10,000 rapid calls", () => {
  const limit = { requests: 10, windowSeconds: 1 };

  it("admits exactly N of 10,000 calls at one instant", () => {
    const limiter = new RateLimiter();
    let admitted = 0;
    for (let i = 0; i < 10_000; i++)
      if (limiter.tryAcquire({ keys: [{ key: "tool:x", limit }], now: 5000 }).ok) admitted++;
    expect(admitted).toBe(10);
  });

  it("admits exactly N per window over 10,000 calls a millisecond apart", () => {
    const limiter = new RateLimiter();
    const admitted: number[] = [];
    for (let now = 0; now < 10_000; now++)
      if (limiter.tryAcquire({ keys: [{ key: "tool:x", limit }], now }).ok) admitted.push(now);
    expect(admitted).toHaveLength(100);
    // Each second's N go through at its very start: the upstream sees bursts of N, never more.
    for (let second = 0; second < 10; second++) {
      expect(admitted.filter((t) => t >= second * 1000 && t < (second + 1) * 1000)).toEqual(
        Array.from({ length: 10 }, (_, i) => second * 1000 + i),
      );
    }
  });

  it("admits exactly N per window from many concurrent callers of one key", async () => {
    let now = 0;
    const limiter = new RateLimiter({ clock: () => now });
    const results = await Promise.all(
      Array.from({ length: 10_000 }, async (_, i) => {
        await Promise.resolve();
        now = Math.floor(i / 2000) * 200; // five instants, 200 ms apart: all within one window
        return limiter.tryAcquire({ keys: [{ key: "tool:x", limit }] }).ok;
      }),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
  });
});

describe("RateLimiter: several keys", () => {
  const tool = (name: string, requests: number): RateLimitKey => ({
    key: toolKey(name),
    limit: { requests, windowSeconds: 1 },
  });
  const source = (requests: number): RateLimitKey => ({
    key: sourceKey("cars"),
    limit: { requests, windowSeconds: 1 },
  });

  it("admits only when every key admits, and counts a refusal against none", () => {
    const limiter = new RateLimiter();
    const call = (name: string, now: number) => limiter.tryAcquire({ keys: [tool(name, 1), source(3)], now });
    expect(call("a", 0)).toEqual({ ok: true });
    // The tool's own limit refuses; the source's count must not move.
    expect(call("a", 10)).toEqual({ ok: false, retryAfterMs: 990, key: "tool:a" });
    expect(call("a", 20)).toEqual({ ok: false, retryAfterMs: 980, key: "tool:a" });
    expect(call("b", 30)).toEqual({ ok: true });
    expect(call("c", 40)).toEqual({ ok: true });
    // The source is full now (a, b, c); d's own key is untouched by this refusal.
    expect(call("d", 50)).toEqual({ ok: false, retryAfterMs: 950, key: "source:cars" });
    expect(call("d", 1000)).toEqual({ ok: true });
  });

  it("names the key with the longest wait when several refuse", () => {
    const limiter = new RateLimiter();
    const keys = [
      { key: "short", limit: { requests: 1, windowSeconds: 1 } },
      { key: "long", limit: { requests: 1, windowSeconds: 10 } },
    ];
    expect(limiter.tryAcquire({ keys, now: 0 }).ok).toBe(true);
    expect(limiter.tryAcquire({ keys, now: 100 })).toEqual({ ok: false, retryAfterMs: 9900, key: "long" });
    expect(limiter.tryAcquire({ keys: [...keys].reverse(), now: 100 })).toEqual({
      ok: false,
      retryAfterMs: 9900,
      key: "long",
    });
  });

  it("keeps keys apart", () => {
    const limiter = new RateLimiter();
    expect(limiter.tryAcquire({ keys: [tool("a", 1)], now: 0 }).ok).toBe(true);
    expect(limiter.tryAcquire({ keys: [tool("b", 1)], now: 0 }).ok).toBe(true);
    expect(limiter.tryAcquire({ keys: [tool("a", 1)], now: 0 }).ok).toBe(false);
  });

  it("counts a key listed twice once", () => {
    const limiter = new RateLimiter();
    const keys = [tool("a", 2), tool("a", 2)];
    expect(limiter.tryAcquire({ keys, now: 0 }).ok).toBe(true);
    expect(limiter.tryAcquire({ keys, now: 0 }).ok).toBe(true);
    expect(limiter.tryAcquire({ keys, now: 0 }).ok).toBe(false);
  });

  it("holds across 10,000 calls spread over tools of one source", () => {
    const limiter = new RateLimiter();
    const admitted: Array<{ name: string; now: number }> = [];
    for (let i = 0; i < 10_000; i++) {
      const name = `t${i % 7}`;
      const now = Math.floor(i / 4); // 2,500 ms of calls, four per millisecond
      if (limiter.tryAcquire({ keys: [tool(name, 2), source(5)], now }).ok) admitted.push({ name, now });
    }
    for (const { now: start } of admitted) {
      const window = admitted.filter((a) => a.now >= start && a.now < start + 1000);
      expect(window.length).toBeLessThanOrEqual(5);
      for (let t = 0; t < 7; t++) expect(window.filter((a) => a.name === `t${t}`).length).toBeLessThanOrEqual(2);
    }
    // Windows start at 0, 1000 and 2000 ms: five each.
    expect(admitted).toHaveLength(15);
  });
});

describe("RateLimiter: a place counts from when its request leaves", () => {
  const keys = [{ key: "k", limit: { requests: 1, windowSeconds: 1 } }];

  it("holds an admitted request's place in every window until it leaves, then one window from there", () => {
    let now = 0;
    const limiter = new RateLimiter({ clock: () => now });
    const held = limiter.reserveNow({ keys });
    if (!held.ok) throw new Error("refused");
    now = 5_000;
    // Not left yet: refused, and the wait is a whole window, as it may leave at any moment.
    expect(limiter.reserveNow({ keys })).toEqual({ ok: false, retryAfterMs: 1_000, key: "k" });
    held.permit.sent();
    now = 5_999;
    expect(limiter.reserveNow({ keys })).toEqual({ ok: false, retryAfterMs: 1, key: "k" });
    now = 6_000;
    expect(limiter.reserveNow({ keys }).ok).toBe(true);
  });

  it("gives back the place of a request that never leaves", () => {
    let now = 0;
    const limiter = new RateLimiter({ clock: () => now });
    const held = limiter.reserveNow({ keys });
    if (!held.ok) throw new Error("refused");
    now = 10;
    held.permit.release();
    expect(held.permit.live()).toBe(false);
    // Released: sending it now changes nothing.
    held.permit.sent();
    expect(limiter.reserveNow({ keys }).ok).toBe(true);
  });

  it("lets a place lapse after PENDING_MS: its request may not go, and a window later it no longer counts", () => {
    let now = 0;
    const limiter = new RateLimiter({ clock: () => now });
    const held = limiter.reserveNow({ keys });
    if (!held.ok) throw new Error("refused");
    now = PENDING_MS - 1;
    expect(held.permit.live()).toBe(true);
    now = PENDING_MS;
    expect(held.permit.live()).toBe(false);
    now = PENDING_MS + 999;
    expect(limiter.reserveNow({ keys }).ok).toBe(false);
    now = PENDING_MS + 1_000;
    expect(limiter.reserveNow({ keys }).ok).toBe(true);
  });
});

describe("rateLimitKeys", () => {
  const operation = (rateLimit?: RateLimit) => (rateLimit ? { rateLimit } : {});
  const perSecond = (requests: number): RateLimit => ({ requests, windowSeconds: 1 });

  it.each([
    { name: "neither", tool: { name: "t", source: "", operation: operation() }, sources: [{ id: "" }], want: [] },
    {
      name: "the tool's own",
      tool: { name: "t", source: "", operation: operation(perSecond(1)) },
      sources: [{ id: "" }],
      want: [{ key: "tool:t", limit: perSecond(1) }],
    },
    {
      name: "its source's",
      tool: { name: "cars__t", source: "cars", operation: operation() },
      sources: [
        { id: "widgets", rateLimit: perSecond(9) },
        { id: "cars", rateLimit: perSecond(2) },
      ],
      want: [{ key: "source:cars", limit: perSecond(2) }],
    },
    {
      name: "both, tool first",
      tool: { name: "t", source: "", operation: operation(perSecond(1)) },
      sources: [{ id: "", rateLimit: perSecond(5) }],
      want: [
        { key: "tool:t", limit: perSecond(1) },
        { key: "source:", limit: perSecond(5) },
      ],
    },
  ])("$name", ({ tool, sources, want }) => {
    expect(rateLimitKeys({ tool, sources })).toEqual(want);
  });
});

describe("retryAfterMs", () => {
  const NOW = Date.parse("1994-11-06T08:49:07Z");

  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ["", undefined],
    ["120", 120_000],
    [" 5 ", 5000],
    ["0", 0],
    ["1.5", 1500],
    ["0.0001", 1],
    ["-1", undefined],
    ["+5", undefined],
    ["5s", undefined],
    ["soon", undefined],
    ["1e3", undefined],
    // IMF-fixdate, RFC 850 and asctime, all 30 s after NOW.
    ["Sun, 06 Nov 1994 08:49:37 GMT", 30_000],
    ["Sunday, 06-Nov-94 08:49:37 GMT", 30_000],
    ["Sun Nov  6 08:49:37 1994", 30_000],
    ["Sun Nov 16 08:49:37 1994", 10 * 86_400_000 + 30_000],
    // A date already past: retry now.
    ["Sun, 06 Nov 1994 08:00:00 GMT", 0],
    // Not an HTTP date.
    ["Sun, 06 Nov 1994 08:49:37 +0000", undefined],
    ["1994-11-06T08:49:37Z", undefined],
    ["Sun, 06 Nov 1994 99:49:37 GMT", undefined],
  ])("%j → %j", (header, want) => {
    expect(retryAfterMs(header, NOW)).toBe(want);
  });
});
