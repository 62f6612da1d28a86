// A rate limit is "at most `requests` in any window of `windowSeconds`", the same everywhere it can be stated.

import { isObject } from "./pointer.js";
import type { RateLimit } from "./types.js";

/** The rate limit a value states, or a message saying what is wrong with it. */
export function parseRateLimit(value: unknown): RateLimit | { problem: string } {
  if (!isObject(value)) return { problem: "a rate limit is an object { requests, windowSeconds }" };
  const { requests, windowSeconds } = value;
  if (!Number.isInteger(requests) || (requests as number) < 1)
    return { problem: "'requests' must be a whole number of at least 1" };
  if (typeof windowSeconds !== "number" || !(windowSeconds > 0) || !Number.isFinite(windowSeconds)) {
    return { problem: "'windowSeconds' must be a number greater than 0" };
  }
  return { requests: requests as number, windowSeconds };
}
