// W3C Trace Context as the engine reads it: every form of `traceparent` the spec calls valid or invalid, future
// versions read by their first four fields, `tracestate` carried through within the spec's bounds or dropped when
// malformed, and the pair our request carries (same trace-id and flags, a parent-id of ours).

import { describe, expect, it } from "vitest";
import {
  childTrace,
  formatTraceparent,
  MAX_TRACESTATE_CHARS,
  parseTraceparent,
  parseTracestate,
} from "../../src/runtime/http/trace-context.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe("traceparent", () => {
  it.each([
    ["sampled", VALID, "01"],
    ["not sampled", `00-${TRACE_ID}-${PARENT_ID}-00`, "00"],
    ["version 00 keeps every flag bit", `00-${TRACE_ID}-${PARENT_ID}-03`, "03"],
  ])("valid, %s", (_, value, flags) => {
    expect(parseTraceparent(value)).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags });
  });

  it.each([
    ["empty", ""],
    ["not a string", 42],
    ["version ff", `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ["upper-case version", `0A-${TRACE_ID}-${PARENT_ID}-01`],
    ["version not hex", `0g-${TRACE_ID}-${PARENT_ID}-01`],
    ["all-zero trace-id", `00-${"0".repeat(32)}-${PARENT_ID}-01`],
    ["all-zero parent-id", `00-${TRACE_ID}-${"0".repeat(16)}-01`],
    ["upper-case trace-id", `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
    ["upper-case parent-id", `00-${TRACE_ID}-00F067AA0BA902B7-01`],
    ["upper-case flags", `00-${TRACE_ID}-${PARENT_ID}-0A`],
    ["trace-id too short", `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ["trace-id too long", `00-${TRACE_ID}0-${PARENT_ID}-01`],
    ["parent-id too short", `00-${TRACE_ID}-${PARENT_ID.slice(1)}-01`],
    ["flags of one digit", `00-${TRACE_ID}-${PARENT_ID}-1`],
    ["flags not hex", `00-${TRACE_ID}-${PARENT_ID}-0x`],
    ["version 00 with a fifth field", `${VALID}-extra`],
    ["version 00 with trailing space", `${VALID} `],
    ["leading space", ` ${VALID}`],
    ["wrong separator", `00_${TRACE_ID}_${PARENT_ID}_01`],
    ["future version shorter than 55 characters", `01-${TRACE_ID}-${PARENT_ID}-0`],
    ["future version with flags not followed by a dash", `01-${TRACE_ID}-${PARENT_ID}-01x`],
    ["future version with an all-zero trace-id", `01-${"0".repeat(32)}-${PARENT_ID}-01`],
  ])("invalid, ignored: %s", (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it.each([
    ["exactly four fields", `01-${TRACE_ID}-${PARENT_ID}-01`, "01"],
    ["a field more", `cc-${TRACE_ID}-${PARENT_ID}-01-what-the-future-holds`, "01"],
    ["only the sampled bit is read", `01-${TRACE_ID}-${PARENT_ID}-0f`, "01"],
    ["unsampled", `fe-${TRACE_ID}-${PARENT_ID}-02`, "00"],
  ])("a future version is read by its first four fields: %s", (_, value, flags) => {
    const parsed = parseTraceparent(value);
    expect(parsed).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags });
    // Sent on in the version we know.
    expect(formatTraceparent(parsed!)).toBe(`00-${TRACE_ID}-${PARENT_ID}-${flags}`);
  });
});

describe("tracestate", () => {
  it.each([
    ["one member", "congo=t61rcWkgMzE", "congo=t61rcWkgMzE"],
    ["two, order kept", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"],
    ["optional whitespace and empty members dropped", " a=1 ,\t, b=2\t,", "a=1,b=2"],
    ["multi-tenant key", "tenant1@vendor=x,7k=y", "tenant1@vendor=x,7k=y"],
    ["a value's inner spaces kept", "a= x y", "a= x y"],
    ["32 members", range(32).join(","), range(32).join(",")],
  ])("carried through: %s", (_, value, sent) => {
    expect(parseTracestate(value)).toBe(sent);
  });

  it.each([
    ["not a string", ["a=1"]],
    ["empty", ""],
    ["only whitespace and commas", " , ,"],
    ["no equals sign", "congo"],
    ["empty value", "congo="],
    ["upper-case key", "Congo=1"],
    ["key starting with a symbol", "_congo=1"],
    ["key too long", `${"k".repeat(257)}=1`],
    ["value too long", `k=${"v".repeat(257)}`],
    ["value with an equals sign", "k=a=b"],
    ["value with a tab", "k=a\tb"],
    ["value with a non-ASCII character", "k=é"],
    ["a repeated key", "a=1,b=2,a=3"],
    ["33 members", range(33).join(",")],
    ["prohibitively large", `a=1${" ".repeat(70_000)}`],
  ])("dropped: %s", (_, value) => {
    expect(parseTracestate(value)).toBeUndefined();
  });

  it("longer than 512 characters: entries over 128 go first, then from the end, whole", () => {
    const long = `big=${"x".repeat(200)}`;
    const members = range(30).map((m) => `${m}${"v".repeat(15)}`);
    const parsed = parseTracestate([members[0], long, ...members.slice(1)].join(","))!;
    expect(parsed.length).toBeLessThanOrEqual(MAX_TRACESTATE_CHARS);
    expect(parsed).not.toContain("big=");
    const kept = parsed.split(",");
    expect(kept).toEqual(members.slice(0, kept.length));
    expect(kept.length).toBeGreaterThan(20);
    expect(kept.length).toBeLessThan(30);
  });
});

describe("the trace context our request carries", () => {
  it("same trace-id and flags, a fresh parent-id; tracestate passed on", () => {
    const first = childTrace({ traceparent: VALID, tracestate: "congo=t61rcWkgMzE" })!;
    const second = childTrace({ traceparent: VALID })!;
    for (const outgoing of [first, second]) {
      const sent = parseTraceparent(outgoing.headers.traceparent)!;
      expect(sent.traceId).toBe(TRACE_ID);
      expect(sent.flags).toBe("01");
      expect(sent.parentId).toMatch(/^[0-9a-f]{16}$/);
      expect(sent.parentId).not.toBe(PARENT_ID);
      expect(sent.parentId).toBe(outgoing.spanId);
    }
    expect(first.spanId).not.toBe(second.spanId);
    expect(first.headers.tracestate).toBe("congo=t61rcWkgMzE");
    expect(second.headers).not.toHaveProperty("tracestate");
  });

  it("none without a valid traceparent, whatever tracestate says", () => {
    expect(childTrace(undefined)).toBeUndefined();
    expect(childTrace({ tracestate: "congo=1" })).toBeUndefined();
    expect(childTrace({ traceparent: `ff-${TRACE_ID}-${PARENT_ID}-01`, tracestate: "congo=1" })).toBeUndefined();
  });

  it("a malformed tracestate is dropped, the traceparent still sent", () => {
    expect(childTrace({ traceparent: VALID, tracestate: "Bad Key=1" })?.headers).toEqual({
      traceparent: expect.stringMatching(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`)),
    });
  });
});

function range(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `k${i}=v${i}`);
}
