// The Activity page's API: GET /console/api/activity answers this replica's audit lines of the last hour, newest
// first, narrowed by `tool`, `principal` and `outcome` here rather than in the browser (so a busy hour sends only
// what is shown), with the per-tool summary. With `after=<seq>&wait=1` it is a long poll: it answers once a line
// newer than `after` is written (or after WAIT_MS with none), which is how the page stays live.

import { hostname } from "node:os";
import { type ActivityFilter, type ActivityLog, MAX_BYTES, MAX_LINES, WINDOW_MS } from "./activity-log.js";
import { summarize } from "./activity-stats.js";
import type { ConsolePage, PageAnswer, PageRequest } from "./page.js";

/** A poll is answered within this even when nothing happens (proxies drop requests idle much longer). */
const WAIT_MS = 25_000;
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 1_000;

export class ActivityPage implements ConsolePage {
  readonly name = "activity";
  /** Which process this is: the page says it shows this replica's calls only. */
  private readonly replica = `${hostname()}, pid ${process.pid}`;

  constructor(private readonly log: ActivityLog) {}

  async get({ query, signal }: PageRequest): Promise<PageAnswer> {
    const after = whole(query.get("after"));
    if (after === null) return { status: 400, json: { error: "after: give the seq of the newest line seen." } };
    const limit = Math.min(MAX_LIMIT, whole(query.get("limit")) || DEFAULT_LIMIT);
    if (query.get("wait") === "1") await this.log.next({ after, timeoutMs: WAIT_MS, signal });
    const filter: ActivityFilter = {};
    for (const key of ["tool", "principal", "outcome"] as const) {
      const value = query.get(key);
      if (value) filter[key] = value;
    }
    const lines = this.log.lines({ filter, after, limit }).map(({ seq, record }) => ({ seq, ...record }));
    const summary = summarize({ entries: this.log.window(), now: this.log.now(), windowMs: WINDOW_MS });
    return {
      json: {
        lines,
        last: this.log.lastSeq,
        ...summary,
        replica: this.replica,
        window: { minutes: WINDOW_MS / 60_000, maxLines: MAX_LINES, maxBytes: MAX_BYTES },
      },
    };
  }
}

/** A whole number ≥ 0 from the query; 0 when absent; null when it is something else. */
function whole(text: string | null): number | null {
  if (text === null || text === "") return 0;
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}
