// One key's log in the in-memory rate limiter (./rate-limit.ts): the entries of its admitted requests, each a time
// on the limiter's clock, provisional (in the future) until its request leaves. At most N entries are in the window
// after an admission, and entries a window old are dropped as the log is asked, so its memory stays within N.

import type { RateLimit } from "../../catalog/types.js";

export interface Entry {
  /** When the request left; until then a time after every admission it must be counted by. */
  time: number;
}

export class MemoryLog {
  private requests: number;
  private windowMs: number;
  private entries: Entry[] = [];

  constructor(limit: RateLimit) {
    this.requests = limit.requests;
    this.windowMs = windowOf(limit);
  }

  /** Milliseconds until the log admits a request at `now`; 0 when it admits one now. */
  waitAt(now: number): number {
    this.entries = this.entries.filter((entry) => entry.time > now - this.windowMs);
    if (this.entries.length < this.requests) return 0;
    // The entry whose leaving the window makes room: the (count − N + 1)-th oldest. One not yet sent leaves a
    // window after it is sent, at the earliest now.
    const times = this.entries.map((entry) => entry.time).sort((a, b) => a - b);
    const wait = Math.min(times[times.length - this.requests]!, now) + this.windowMs - now;
    // Timestamps may be fractional (performance.now): round a wait up so that waiting it is always enough.
    return Math.max(1, Math.ceil(wait));
  }

  add(time: number): Entry {
    const entry = { time };
    this.entries.push(entry);
    return entry;
  }

  remove(entry: Entry): void {
    this.entries = this.entries.filter((kept) => kept !== entry);
  }

  /** Whether every entry is a window old at `now` (none provisional), so the log holds nothing back. */
  idleAt(now: number): boolean {
    return this.entries.every((entry) => entry.time <= now - this.windowMs);
  }

  /** A changed limit: the window follows it, and only the most recent N entries are kept. */
  follow(limit: RateLimit): void {
    this.windowMs = windowOf(limit);
    if (limit.requests !== this.requests) {
      this.entries = [...this.entries].sort((a, b) => a.time - b.time).slice(-limit.requests);
      this.requests = limit.requests;
    }
  }
}

/** To the microsecond, so 0.007 s is 7 ms and not 7.000000000000001. */
function windowOf(limit: RateLimit): number {
  return Math.round(limit.windowSeconds * 1e6) / 1e3;
}
