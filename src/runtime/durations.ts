// Durations in messages: a rate limit's wait for the model, an approval's deadline for a person. Rounded up, so a
// wait is never shorter than it says.

import { plural } from "../catalog/plural.js";

const SHORT = { second: "s", minute: "min", hour: "h" };

/**
 * "750 ms", "2 s", "1 min 5 s", "2 h 3 min"; with `words`, "2 seconds", "1 minute 5 seconds", "2 hours 3 minutes"
 * for prose a person reads.
 */
export function formatDuration(ms: number, { words = false }: { words?: boolean } = {}): string {
  const part = (count: number, unit: keyof typeof SHORT): string =>
    words ? `${count} ${unit}${plural(count)}` : `${count} ${SHORT[unit]}`;
  const pair = (first: string, rest: number, unit: keyof typeof SHORT): string =>
    rest ? `${first} ${part(rest, unit)}` : first;
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))} ms`;
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return part(seconds, "second");
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return pair(part(minutes, "minute"), seconds % 60, "second");
  return pair(part(Math.floor(minutes / 60), "hour"), minutes % 60, "minute");
}
