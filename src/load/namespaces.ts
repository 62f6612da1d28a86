// The namespace a source file takes when several are served (or a registry's, always): its name up to the first
// dot, `pets.0.yaml` → `pets`, its tools `pets__…`. Two sources taking one namespace are refused, never renamed:
// renaming one `pets2` moved its tools, the credentials named after the namespace (API_KEY_PETS_…) and the
// policies naming them to whichever file sorted first. Namespaces differing only in letter case, `-` or `_` clash
// too: they read the same credential variables.

import { UserError } from "../catalog/errors.js";
import { envSuffix } from "../catalog/security.js";

/** A file's namespace: its base name up to the first dot, other characters than letters, digits and `-` as `_`. */
export function namespaceOf(source: string): string {
  const base =
    source
      .replace(/[?#].*$/, "")
      .split(/[/\\]/)
      .pop() ?? "";
  return (base.split(".")[0] ?? "").replace(/[^A-Za-z0-9-]+/g, "_").replace(/^_+|_+$/g, "") || "source";
}

/** What two namespaces share when they clash: the part of the credential variables' names they give. */
export function namespaceKey(namespace: string): string {
  return envSuffix(namespace);
}

/**
 * Why `source` may not take its namespace: `other` has it (`held`: published, and keeps it), or both take it.
 * Names both files.
 */
export function namespaceClash({ source, other, held }: { source: string; other: string; held: boolean }): string {
  const id = namespaceOf(source);
  const theirs = namespaceOf(other);
  const also =
    id === theirs
      ? ""
      : ` (as '${theirs}', differing only in letter case, '-' or '_', reads the same credential variables)`;
  const what = held
    ? `${source} takes the namespace '${id}', which ${other} has${also}: ${other} keeps it`
    : `${source} and ${other} both take the namespace '${id}'${also}`;
  return `${what}; a namespace is a file's name up to its first dot: rename ${source}, or serve both from a manifest naming each source's id`;
}

/** "" for a single source; otherwise (or `each`) each file's namespace. A clash is refused, naming both files. */
export function namespaces(sources: string[], each: boolean): string[] {
  if (sources.length === 1 && !each) return [""];
  const taken = new Map<string, string>();
  return sources.map((source) => {
    const key = namespaceKey(namespaceOf(source));
    const holder = taken.get(key);
    if (holder !== undefined)
      throw new UserError({ code: "E_NAMESPACE", message: namespaceClash({ source, other: holder, held: false }) });
    taken.set(key, source);
    return namespaceOf(source);
  });
}
