// The window check of the replica tests: did any window of W admit more than N calls, judged from the upstream?
//
// A limit admits a call on its own clock (Redis's); the call then crosses a replica's event loop and loopback before
// the upstream (a thread of its own: ./recording-upstream.ts) stamps its arrival, and on a loaded 2-core machine a
// replica can be held up between the two for hundreds of milliseconds. A fixed slack is a guess (100 ms was not
// enough: 35 arrivals within "W less 100 ms" under a limit of 20 that held). So each call carries its number
// (`?call=<index>`) and the slack is each call's own: a call was admitted after it was made and before it arrived,
// so if no W ever admitted more than N, then for any N+1 consecutive arrivals the last came at least W after the
// earliest of those N+1 calls was made. Limiters that do not share their windows fail it at once.

import type { Arrival } from "./recording-upstream.js";

/**
 * Over every N+1 consecutive arrivals: how long after the earliest of those calls was made the last one arrived
 * (ms); the shortest. At least W when no window of W admitted more than N. `calls[i].start` is when call `i` (its
 * `call` query parameter) was made, on the same clock as the arrivals (performance.now() of the test's thread).
 */
export function shortestWindow({
  arrivals,
  calls,
  n,
}: {
  arrivals: Arrival[];
  calls: ReadonlyArray<{ start: number }>;
  n: number;
}): number {
  const sorted = [...arrivals].sort((a, b) => a.at - b.at);
  const made = sorted.map((a) => {
    const call = calls[Number(new URLSearchParams(a.query).get("call"))];
    if (!call) throw new Error(`an arrival names no call made: ?${a.query}`);
    return call.start;
  });
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 0; i + n < sorted.length; i++)
    shortest = Math.min(shortest, sorted[i + n]!.at - Math.min(...made.slice(i, i + n + 1)));
  return shortest;
}

/** The shortest time N+1 consecutive arrivals span, as the upstream saw them (ms): reported beside the check. */
export function shortestSpan({ arrivals, n }: { arrivals: Arrival[]; n: number }): number {
  const times = arrivals.map((a) => a.at).sort((a, b) => a - b);
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 0; i + n < times.length; i++) shortest = Math.min(shortest, times[i + n]! - times[i]!);
  return shortest;
}
