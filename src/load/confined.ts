// Where a registry's sources and the console's drafts may read: files inside the registry directory, nothing else.
// Console admins write them, and the server reads files with its own rights, so an absolute path, a `..` out, a
// symlink leading out or a URL (a loopback one included) would hand them any file or service the server can reach.
// `--allow-ref` is the operator's widening for the sources the operator names; it does not widen this.

import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { isUrl } from "../catalog/url.js";

/** The directory a source may read in; none (a draft on a server without a registry): no file at all. */
export interface Confinement {
  dir?: string;
}

/** Why a source confined so may not read `target` (a path or URL), or undefined when it may. */
export function confinedProblem({ target, confined }: { target: string; confined: Confinement }): string | undefined {
  if (isUrl(target)) return "is a URL, and a registry source reads only files inside the registry directory";
  if (confined.dir === undefined)
    return "is a file, and a draft on a server without a registry (--registry) reads no file";
  return isInside({ path: target, dir: confined.dir })
    ? undefined
    : "is not inside the registry directory (no absolute path, `..` or symlink leading out of it)";
}

/**
 * Whether `path` is `dir` or below it: as written first (so a path outside is refused without being looked at,
 * which would tell whether it exists), then with symlinks followed, for its nearest part that exists.
 */
export function isInside({ path, dir }: { path: string; dir: string }): boolean {
  const target = resolve(path);
  const base = resolve(dir);
  if (!within({ path: target, dir: base })) return false;
  let realDir: string;
  try {
    realDir = realpathSync(base);
  } catch {
    return false;
  }
  for (let part = target; ; part = dirname(part)) {
    try {
      return within({ path: realpathSync(part), dir: realDir });
    } catch {
      // Not there: its parent decides where it would be.
      if (part === base) return false;
    }
  }
}

function within({ path, dir }: { path: string; dir: string }): boolean {
  const rel = relative(dir, path);
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
