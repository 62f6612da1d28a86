// Values read from Redis that this replica did not seal (forged, copied from another key, changed, or sealed with a
// secret it does not hold) are ignored, and said in the log, bounded: whoever can write to Redis decides how many
// such values there are, not how much is logged. One line a window at most (the first), naming the key (ours, a
// fixed prefix and an id checked before use, so short), and with the next line the count of those not logged.

/** At most one line per this many ms. */
const WINDOW_MS = 60_000;
/** Key names longer than this are cut in the line (the keys read are ours, well below it). */
const MAX_KEY_CHARS = 120;

export class IgnoredValues {
  private readonly log: (line: string) => void;
  private readonly what: string;
  private readonly now: () => number;
  private loggedAt: number | undefined;
  private unlogged = 0;

  constructor({ log, what, now = Date.now }: { log: (line: string) => void; what: string; now?: () => number }) {
    this.log = log;
    this.what = what;
    this.now = now;
  }

  /** The value under `key` was ignored. */
  ignored(key: string): void {
    const now = this.now();
    if (this.loggedAt !== undefined && now - this.loggedAt < WINDOW_MS) {
      this.unlogged++;
      return;
    }
    const more =
      this.unlogged > 0 ? ` (and ${this.unlogged} more since the last such line, not logged one by one)` : "";
    this.loggedAt = now;
    this.unlogged = 0;
    this.log(
      `${this.what}: ignored the value under ${key.slice(0, MAX_KEY_CHARS)} in Redis: this replica did not seal it (forged, copied from another key, changed, or sealed with a --state-secret this replica does not hold)${more}`,
    );
  }
}
