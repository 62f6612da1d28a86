// The audit log as the console's Activity page reads it: every audit line this replica writes also goes to a ring in
// memory, the last MAX_LINES lines and none older than an hour, with or without --audit-log. Lines arrive masked (the
// engine's safeRecord); the console masks its answers once more. A page waits for the next line by long polling
// (`next`), so a call shows in the browser as its line is written, through the same JSON API as every other page.

import type { AuditLog, AuditRecord } from "../runtime/audit.js";

/** Lines kept: about 5 MB of typical lines; a busier hour shows its last 10,000 calls. */
export const MAX_LINES = 10_000;
/** How far back the page looks: lines older than this are not shown or counted. */
export const WINDOW_MS = 60 * 60 * 1000;

export interface ActivityEntry {
  /** 1 for the first line this process wrote, one more for each after it: the page's cursor. */
  seq: number;
  /** When the line was written (ms since the epoch, this process's clock). */
  at: number;
  record: AuditRecord;
}

/**
 * What the page narrows the log to: each given field must equal the line's. Outcome `not_ok` is every outcome but
 * `ok`; principal `(none)` is calls without a verified caller (a server without endpoint auth).
 */
export interface ActivityFilter {
  tool?: string;
  principal?: string;
  outcome?: string;
}

export const NO_PRINCIPAL = "(none)";

export class ActivityLog implements AuditLog {
  private readonly ring: Array<ActivityEntry | undefined>;
  private last = 0;
  private waiters = new Set<() => void>();

  constructor(private readonly options: { maxLines?: number; now?: () => number } = {}) {
    this.ring = new Array<ActivityEntry | undefined>(options.maxLines ?? MAX_LINES);
  }

  /** The newest line's seq; 0 before the first. */
  get lastSeq(): number {
    return this.last;
  }

  write(record: AuditRecord): void {
    this.last += 1;
    this.ring[this.last % this.ring.length] = { seq: this.last, at: this.now(), record };
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  /** The lines of the last hour, newest first. */
  *window(): Generator<ActivityEntry> {
    const since = this.now() - WINDOW_MS;
    const oldest = Math.max(1, this.last - this.ring.length + 1);
    for (let seq = this.last; seq >= oldest; seq -= 1) {
      const entry = this.ring[seq % this.ring.length]!;
      // Lines are written in time order: the first one too old ends the hour.
      if (entry.at <= since) return;
      yield entry;
    }
  }

  /** The newest `limit` lines of the hour after `after` that pass the filter, newest first. */
  lines({ filter, after = 0, limit }: { filter: ActivityFilter; after?: number; limit: number }): ActivityEntry[] {
    const found: ActivityEntry[] = [];
    for (const entry of this.window()) {
      if (entry.seq <= after || found.length >= limit) break;
      if (passes(entry.record, filter)) found.push(entry);
    }
    return found;
  }

  /** Settles once a line after `after` is written, or after `timeoutMs`, or when `signal` aborts. */
  next({ after, timeoutMs, signal }: { after: number; timeoutMs: number; signal: AbortSignal }): Promise<void> {
    if (this.last > after || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener("abort", done);
      this.waiters.add(done);
    });
  }

  /** The log's clock (tests give one). */
  now(): number {
    return this.options.now?.() ?? Date.now();
  }
}

export function passes(record: AuditRecord, filter: ActivityFilter): boolean {
  if (filter.tool && record.tool !== filter.tool) return false;
  if (filter.principal && (record.principal ?? NO_PRINCIPAL) !== filter.principal) return false;
  if (filter.outcome === "not_ok") return record.outcome !== "ok";
  return !filter.outcome || record.outcome === filter.outcome;
}
