// The audit log as the console's Activity page reads it: every audit line this replica writes also goes to a ring in
// memory, the last MAX_LINES lines, at most MAX_BYTES of them and none older than an hour, with or without
// --audit-log. Lines arrive masked and bounded (the engine's safeRecord); the console masks its answers once more. A page waits for the next line by long polling
// (`next`), so a call shows in the browser as its line is written, through the same JSON API as every other page.

import type { AuditLog, AuditRecord } from "../runtime/audit/audit-record.js";
import { boundedRecord, jsonBytes, MAX_AUDIT_LINE_BYTES } from "../runtime/audit/audit-line.js";

/** Lines kept: about 5 MB of typical lines; a busier hour shows its last 10,000 calls. */
export const MAX_LINES = 10_000;
/** The lines' JSON kept, in bytes: 10,000 typical lines fit, 512 of the largest (16 KiB) do. */
export const MAX_BYTES = 8 * 1024 * 1024;
/** How far back the page looks: lines older than this are not shown or counted. */
export const WINDOW_MS = 60 * 60 * 1000;

export interface ActivityEntry {
  /** 1 for the first line this process wrote, one more for each after it: the page's cursor. */
  seq: number;
  /** When the line was written (ms since the epoch, this process's clock). */
  at: number;
  record: AuditRecord;
}

/** A line in the ring, with its JSON size counted against MAX_BYTES. */
interface KeptLine extends ActivityEntry {
  bytes: number;
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
  private readonly ring: Array<KeptLine | undefined>;
  private readonly maxBytes: number;
  private last = 0;
  /** The oldest seq still kept (lines before it were pushed out by count or by bytes). */
  private first = 1;
  private bytes = 0;
  private waiters = new Set<() => void>();

  constructor(private readonly options: { maxLines?: number; maxBytes?: number; now?: () => number } = {}) {
    this.ring = new Array<KeptLine | undefined>(options.maxLines ?? MAX_LINES);
    this.maxBytes = options.maxBytes ?? MAX_BYTES;
  }

  /** The newest line's seq; 0 before the first. */
  get lastSeq(): number {
    return this.last;
  }

  /** The bytes the kept lines' JSON takes (at most MAX_BYTES). */
  get keptBytes(): number {
    return this.bytes;
  }

  write(record: AuditRecord): void {
    // The engine's lines are bounded already; a library's writer may not be.
    let line = record;
    let bytes = jsonBytes(line);
    if (bytes > MAX_AUDIT_LINE_BYTES) {
      line = boundedRecord(line);
      bytes = jsonBytes(line);
    }
    const at = this.now();
    this.last += 1;
    // The slot's previous line (MAX_LINES ago) goes, then lines past the hour, then the oldest until the new one
    // fits in MAX_BYTES.
    if (this.last - this.first >= this.ring.length) this.drop();
    while (this.first < this.last && this.ring[this.first % this.ring.length]!.at <= at - WINDOW_MS) this.drop();
    while (this.first < this.last && this.bytes + bytes > this.maxBytes) this.drop();
    this.ring[this.last % this.ring.length] = { seq: this.last, at, record: line, bytes };
    this.bytes += bytes;
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  /** The oldest line kept goes. */
  private drop(): void {
    const slot = this.first % this.ring.length;
    this.bytes -= this.ring[slot]?.bytes ?? 0;
    this.ring[slot] = undefined;
    this.first += 1;
  }

  /** The lines of the last hour, newest first. */
  *window(): Generator<ActivityEntry> {
    const since = this.now() - WINDOW_MS;
    for (let seq = this.last; seq >= this.first; seq -= 1) {
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
