// Durations as messages say them: a rate limit's wait for the model in short units, an approval's deadline for a
// person in words; both rounded up.

import { describe, expect, it } from "vitest";
import { formatDuration } from "../../src/runtime/durations.js";

describe("formatDuration", () => {
  it.each<[number, string, string]>([
    [0, "0 ms", "0 ms"],
    [1, "1 ms", "1 ms"],
    [300, "300 ms", "300 ms"],
    [999, "999 ms", "999 ms"],
    [1000, "1 s", "1 second"],
    [1001, "2 s", "2 seconds"],
    [59_000, "59 s", "59 seconds"],
    [60_000, "1 min", "1 minute"],
    [65_000, "1 min 5 s", "1 minute 5 seconds"],
    [300_000, "5 min", "5 minutes"],
    [3_600_000, "1 h", "1 hour"],
    [3_780_000, "1 h 3 min", "1 hour 3 minutes"],
    [7_260_000, "2 h 1 min", "2 hours 1 minute"],
  ])("%d ms → %s, in words %s", (ms, short, words) => {
    expect(formatDuration(ms)).toBe(short);
    expect(formatDuration(ms, { words: true })).toBe(words);
  });
});
