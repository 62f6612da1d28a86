// Watching a registry's directory (or the directories of watched files) and refreshing once the writes settle.
// Editors save in bursts: several writes in a row, or a temporary file renamed over the old one (which replaces
// the file watched, so directories are watched, not files). A refresh runs QUIET_MS after the last event, and
// reads every source whole then; a text that is still half-written fails to parse and is not published, and the
// write that completes it is another event.

import { type FSWatcher, watch } from "node:fs";
import { messageOf } from "../catalog/errors.js";

/** How long the directory must be quiet before the sources are read. */
export const QUIET_MS = 150;

export function watchSources({
  places,
  refresh,
  log,
  quietMs = QUIET_MS,
}: {
  /** Directories, each with the file names that matter in it (all, when absent). */
  places: { dir: string; names?: Set<string> }[];
  refresh: () => Promise<void>;
  log: (line: string) => void;
  quietMs?: number;
}): () => void {
  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), quietMs);
  };
  const watchers: FSWatcher[] = places.map(({ dir, names }) => {
    const watcher = watch(dir, { persistent: false }, (_event, file) => {
      // Without a name (some platforms), anything may have changed.
      if (!names || file === null || names.has(file.toString())) changed();
    });
    watcher.on("error", (error) => log(`openapi-mcp: registry: watching ${dir} failed: ${messageOf(error)}`));
    return watcher;
  });
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
