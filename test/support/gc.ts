// A forced garbage collection, for tests that compare the heap like for like before and after.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** `gc()` without --expose-gc on the command line (vitest's workers are not started with it), or undefined. */
export function forcedGc(): (() => void) | undefined {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as (() => void) | undefined;
    if (typeof gc !== "function") return undefined;
    return () => {
      gc();
      gc();
    };
  } catch {
    return undefined;
  }
}
