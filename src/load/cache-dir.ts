// Where the catalog cache lives: `openapi-mcp` in the user's cache directory as each system names it
// ($XDG_CACHE_HOME wherever it is set; else ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows, ~/.cache
// elsewhere). It is made private (0700); one that others may write to, or that belongs to someone else, is not
// used, since an entry there could have been put by anyone.

import { lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { posix, win32 } from "node:path";

export interface CacheDirInput {
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}

/** The cache directory's path, or undefined when the system names none. */
export function cacheDirectory({
  env = process.env,
  platform = process.platform,
  home = safeHome(),
}: CacheDirInput = {}): string | undefined {
  const { isAbsolute, join } = platform === "win32" ? win32 : posix;
  // The XDG spec: a relative path is invalid and is ignored.
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "openapi-mcp");
  if (platform === "win32") {
    const local = env.LOCALAPPDATA;
    return local && isAbsolute(local) ? join(local, "openapi-mcp", "Cache") : undefined;
  }
  if (!home) return undefined;
  return platform === "darwin" ? join(home, "Library", "Caches", "openapi-mcp") : join(home, ".cache", "openapi-mcp");
}

/** Makes the directory (private) if needed; why it cannot be used, or undefined when it can. */
export function prepareCacheDirectory(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return `${dir} is not a directory`;
    // Ownership and modes mean nothing the same way on Windows.
    if (process.platform === "win32") return undefined;
    if (process.getuid && stat.uid !== process.getuid()) return `${dir} belongs to another user`;
    if ((stat.mode & 0o022) !== 0)
      return `${dir} may be written by other users (mode ${(stat.mode & 0o777).toString(8)})`;
    return undefined;
  } catch (error) {
    return `${dir}: ${(error as Error).message}`;
  }
}

function safeHome(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}
