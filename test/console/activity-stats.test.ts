// The Activity page's figures and log window: per tool p50/p95 latency and error rate over the last hour (lines just
// inside the hour count, lines just outside it do not), and the ring the page reads (bounded, filtered on the
// server, newest first, after a cursor, woken by the next line).

import { describe, expect, it } from "vitest";
import { ActivityLog, WINDOW_MS } from "../../src/console/activity-log.js";
import { summarize } from "../../src/console/activity-stats.js";
import type { AuditOutcome, AuditRecord } from "../../src/runtime/audit/audit-record.js";

const HOUR = 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

function line({
  tool,
  durationMs = 10,
  outcome = "ok",
  principal,
}: {
  tool: string;
  durationMs?: number;
  outcome?: AuditOutcome;
  principal?: string;
}): AuditRecord {
  return {
    time: new Date(NOW).toISOString(),
    tool,
    arguments: {},
    durationMs,
    outcome,
    ...(principal ? { principal } : {}),
  };
}

describe("the per-tool summary of the last hour", () => {
  it("gives calls, the share not ok and the nearest-rank p50 and p95 of the durations", () => {
    // 20 calls of 1..20 ms in shuffled order, 2 of them failing; 1 call of another tool.
    const durations = [7, 20, 3, 15, 1, 12, 9, 18, 5, 14, 2, 19, 11, 6, 17, 4, 13, 8, 16, 10];
    const entries = durations.map((durationMs, i) => ({
      seq: i + 1,
      at: NOW - 1000 * i,
      record: line({ tool: "getPet", durationMs, outcome: i === 3 ? "http_error" : i === 8 ? "denied" : "ok" }),
    }));
    entries.push({ seq: 21, at: NOW, record: line({ tool: "listPets", durationMs: 250, principal: "alice" }) });
    const { tools, seen } = summarize({ entries, now: NOW, windowMs: HOUR });
    expect(tools).toEqual([
      { tool: "getPet", calls: 20, errors: 2, errorRate: 0.1, p50Ms: 10, p95Ms: 19 },
      { tool: "listPets", calls: 1, errors: 0, errorRate: 0, p50Ms: 250, p95Ms: 250 },
    ]);
    expect(seen).toEqual({
      tools: ["getPet", "listPets"],
      principals: ["(none)", "alice"],
      outcomes: ["denied", "http_error", "ok"],
    });
  });

  it("counts calls up to an hour old and none older", () => {
    const at = (ago: number, durationMs: number, outcome: AuditOutcome = "ok") => ({
      seq: 0,
      at: NOW - ago,
      record: line({ tool: "getPet", durationMs, outcome }),
    });
    const entries = [
      at(0, 10),
      at(HOUR - 1, 30, "timeout"), // 59:59.999 ago: inside
      at(HOUR, 5_000, "http_error"), // exactly an hour ago: outside
      at(HOUR + 60_000, 9_000, "http_error"), // 61 minutes ago: outside
    ];
    const { tools } = summarize({ entries, now: NOW, windowMs: HOUR });
    expect(tools).toEqual([{ tool: "getPet", calls: 2, errors: 1, errorRate: 0.5, p50Ms: 10, p95Ms: 30 }]);
    expect(summarize({ entries, now: NOW + HOUR, windowMs: HOUR }).tools).toEqual([]);
  });
});

describe("the activity log the console reads", () => {
  it("keeps the newest lines up to its bound and none older than an hour", () => {
    let now = NOW;
    const log = new ActivityLog({ maxLines: 5, now: () => now });
    for (let i = 1; i <= 8; i += 1) log.write(line({ tool: `t${i}` }));
    expect([...log.window()].map((e) => e.record.tool)).toEqual(["t8", "t7", "t6", "t5", "t4"]);
    now += WINDOW_MS - 1;
    log.write(line({ tool: "t9" }));
    now += 1;
    expect([...log.window()].map((e) => e.record.tool)).toEqual(["t9"]);
    expect(log.lastSeq).toBe(9);
  });

  it("narrows by tool, principal and outcome, newest first, after a cursor and up to a limit", () => {
    const log = new ActivityLog({ now: () => NOW });
    log.write(line({ tool: "getPet", principal: "alice" }));
    log.write(line({ tool: "getPet", principal: "bob", outcome: "http_error" }));
    log.write(line({ tool: "listPets", principal: "alice", outcome: "denied" }));
    log.write(line({ tool: "getPet" }));
    const seqs = (filter: object, more: { after?: number; limit?: number } = {}) =>
      log.lines({ filter, limit: 100, ...more }).map((e) => e.seq);
    expect(seqs({})).toEqual([4, 3, 2, 1]);
    expect(seqs({ tool: "getPet" })).toEqual([4, 2, 1]);
    expect(seqs({ principal: "alice" })).toEqual([3, 1]);
    expect(seqs({ principal: "(none)" })).toEqual([4]);
    expect(seqs({ outcome: "not_ok" })).toEqual([3, 2]);
    expect(seqs({ outcome: "http_error", tool: "getPet" })).toEqual([2]);
    expect(seqs({}, { after: 2 })).toEqual([4, 3]);
    expect(seqs({}, { limit: 2 })).toEqual([4, 3]);
  });

  it("wakes a waiting poll when the next line is written, and not before", async () => {
    const log = new ActivityLog();
    log.write(line({ tool: "getPet" }));
    let woke = false;
    const waiting = log.next({ after: 1, timeoutMs: 60_000, signal: new AbortController().signal }).then(() => {
      woke = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(woke).toBe(false);
    log.write(line({ tool: "listPets" }));
    await waiting;
    expect(woke).toBe(true);
  });
});
