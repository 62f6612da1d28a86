// What the Activity page's chart and table show: per tool, the calls of the last hour, how many did not end `ok`
// (refusals such as denied or rate_limited count, as an agent got no answer from the API), and the p50 and p95 of
// their durations (the audit line's durationMs: from the call's start to its audit line).

import type { ActivityEntry } from "./activity-log.js";
import { NO_PRINCIPAL } from "./activity-log.js";

export interface ToolActivity {
  tool: string;
  calls: number;
  /** Calls whose outcome is not `ok`. */
  errors: number;
  /** errors / calls, 0 to 1. */
  errorRate: number;
  p50Ms: number;
  p95Ms: number;
}

export interface ActivitySummary {
  /** Busiest tool first, then by name. */
  tools: ToolActivity[];
  /** What the hour holds, for the page's filter choices (sorted). */
  seen: { tools: string[]; principals: string[]; outcomes: string[] };
}

/** The entries' summary over `windowMs` before `now` (entries at or before the window's start are left out). */
export function summarize({
  entries,
  now,
  windowMs,
}: {
  entries: Iterable<ActivityEntry>;
  now: number;
  windowMs: number;
}): ActivitySummary {
  const since = now - windowMs;
  const byTool = new Map<string, { durations: number[]; errors: number }>();
  const principals = new Set<string>();
  const outcomes = new Set<string>();
  for (const { at, record } of entries) {
    if (at <= since) continue;
    const tool = byTool.get(record.tool) ?? { durations: [], errors: 0 };
    byTool.set(record.tool, tool);
    tool.durations.push(record.durationMs);
    if (record.outcome !== "ok") tool.errors += 1;
    principals.add(record.principal ?? NO_PRINCIPAL);
    outcomes.add(record.outcome);
  }
  const tools = [...byTool].map(([name, { durations, errors }]) => {
    durations.sort((a, b) => a - b);
    return {
      tool: name,
      calls: durations.length,
      errors,
      errorRate: errors / durations.length,
      p50Ms: percentile(durations, 50),
      p95Ms: percentile(durations, 95),
    };
  });
  tools.sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  return {
    tools,
    seen: { tools: [...byTool.keys()].sort(), principals: [...principals].sort(), outcomes: [...outcomes].sort() },
  };
}

/** The nearest-rank percentile of sorted values: the smallest value with at least p% of them at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
