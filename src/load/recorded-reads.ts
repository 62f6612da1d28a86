// What a load reads, for the catalog cache (cache.ts). While a catalog is built under `recordReads`, every file
// and URL the loader reads is noted with a digest of its bytes (an entry is used again only while all of them are
// unchanged), and the sources the cache already read to find its entry are handed back instead of read twice, so
// the entry is keyed on exactly the bytes that were loaded.

import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import type { SourceText } from "./source-text.js";

export interface ReadLog {
  /** Sources read before the load, by location (absolute path or URL as given). */
  given: Map<string, SourceText>;
  /** What the load read besides them. */
  read: Array<{ location: string; remote: boolean; digest: string }>;
}

const current = new AsyncLocalStorage<ReadLog>();
let recording = 0;

export async function recordReads<T>(log: ReadLog, run: () => Promise<T>): Promise<T> {
  recording++;
  try {
    return await current.run(log, run);
  } finally {
    // While an AsyncLocalStorage is enabled, Node keeps a hook on every promise for the life of the process (Node
    // 20: each await of every later call ~2x as costly, bench/call); disabled once no load is being recorded.
    if (--recording === 0) current.disable();
  }
}

/** The bytes of a source the cache read already, if this load is recorded and it did. */
export function readBefore(location: string): SourceText | undefined {
  return current.getStore()?.given.get(location);
}

export function noteRead({
  location,
  remote,
  bytes,
}: {
  location: string;
  remote: boolean;
  bytes: Buffer | string;
}): void {
  const log = current.getStore();
  if (log && !log.given.has(location)) log.read.push({ location, remote, digest: digestOf(bytes) });
}

export function digestOf(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}
