// The key of a catalog cache entry: a digest of everything that shapes the catalog and is known before the load.
// That is the bytes of each source, the load options (every one but those that cannot change the catalog), the
// working directory (relative paths are shown as given and resolved from it) and the code that builds catalogs:
// our version, and the size and time of every file of the loader and catalog, so a rebuilt or edited install
// makes new entries. What a load reads besides the sources is not known before it: the entry lists those reads
// (recorded-reads.ts) and is used only while they are unchanged.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadOptions } from "./sources.js";
import { digestOf } from "./recorded-reads.js";

/**
 * Whether each load option can change the catalog. Every option is named (the compiler sees to it), so a new one
 * cannot be left out of the key by accident. Not: where `${VAR}` is looked up (the reads are recorded), progress.
 */
const SHAPING = {
  baseUrl: true,
  include: true,
  exclude: true,
  filterPlaces: true,
  allowRefs: true,
  allowInsecureHttp: true,
  upstreamAuth: true,
  settingsAuth: true,
  serverVariables: true,
  serverVariablePlaces: true,
  checkConformance: true,
  namespaceEach: true,
  confined: true,
  secretAssignments: true,
  env: false,
  progress: false,
} satisfies Record<keyof LoadOptions, boolean>;

export interface KeyedSource {
  /** As given on the command line. */
  given: string;
  /** Absolute path or URL. */
  location: string;
  digest: string;
}

/**
 * The entry's key, and the identity of what it is for (the same sources, as given, with the same options): an
 * entry replaces older ones of the same identity, so editing a document does not pile entries up.
 */
export function cacheKey({
  sources,
  options,
  code = codeFingerprint(),
}: {
  sources: KeyedSource[];
  options: LoadOptions;
  code?: string;
}): { key: string; identity: string } {
  const shaping = Object.fromEntries(
    Object.entries(options).filter(
      ([name, value]) => SHAPING[name as keyof LoadOptions] === true && value !== undefined,
    ),
  );
  const what = {
    cwd: process.cwd(),
    sources: sources.map(({ given, location }) => ({ given, location })),
    options: shaping,
  };
  return {
    key: digestOf(stableJson({ ...what, code, digests: sources.map((s) => s.digest) })),
    identity: digestOf(stableJson(what)).slice(0, 16),
  };
}

let fingerprint: string | undefined;
/** Our version and the size and modification time of each file of the code that makes catalogs. */
export function codeFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const root = new URL("../../", import.meta.url);
  const lines = [JSON.parse(readFileSync(new URL("package.json", root), "utf8")).version as string];
  for (const dir of [
    new URL("../catalog/", import.meta.url),
    new URL("./", import.meta.url),
    new URL("schemas/", root),
  ]) {
    const path = fileURLToPath(dir);
    for (const name of (readdirSync(path, { recursive: true }) as string[]).sort()) {
      if (!/\.(js|ts|json)$/.test(name)) continue;
      const stat = statSync(join(path, name));
      lines.push(`${name} ${stat.size} ${stat.mtimeMs}`);
    }
  }
  fingerprint = digestOf(lines.join("\n"));
  return fingerprint;
}

/** JSON with every object's keys in order, so equal values give equal text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : stableJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter(
        (key) =>
          (value as Record<string, unknown>)[key] !== undefined &&
          typeof (value as Record<string, unknown>)[key] !== "function",
      )
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
