// The catalog cache: a catalog built once is kept in the user's cache directory (cache-dir.ts) and used again
// while its sources, what they read, the options and our code are unchanged (cache-key.ts). GitHub's spec then
// starts in a fraction of the time: no parsing, conversion or listing. An entry is input like any other: one
// that is cut, altered, foreign or stale is ignored and the catalog built again (cache-entry.ts); a cache that
// cannot be read or written is no error, just no cache. The loader itself is imported only when it has to run.

import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import { isUrl } from "../catalog/url.js";
import type { Environment } from "../catalog/variables.js";
import { cacheDirectory } from "./cache-dir.js";
import { decodeEntry, type Entry, type EntryHeader, entryBody } from "./cache-entry.js";
import { cacheKey, type KeyedSource } from "./cache-key.js";
import { writeEntry } from "./cache-write.js";
import { readSource } from "./read-source.js";
import type { SourceText } from "./source-text.js";
import { digestOf, type ReadLog, recordReads } from "./recorded-reads.js";
import type { LoadOptions } from "./sources.js";

export interface CacheOptions {
  /** Use the cache (default: on). */
  cache?: boolean;
  /** The directory (default: the user's cache directory, see cache-dir.ts). */
  cacheDir?: string;
  /** Told why an entry is not used or not written (the CLI shows it with --debug). */
  cacheLog?: (line: string) => void;
  /** Told, once a process, that the cache cannot be written (the CLI warns; the catalog is served all the same). */
  cacheWarn?: (line: string) => void;
  /**
   * A catalog from the cache comes without its schemas and descriptions until `complete()` is called (serve: its
   * first answers need neither). Default: complete at once.
   */
  deferSchemas?: boolean;
}

export interface CatalogLoad {
  catalog: Catalog;
  /** The catalog came from the cache. */
  fromCache: boolean;
  /** Each tool's tools/list entry as JSON (output schemas advertised), in the catalog's order, when cached. */
  listing?: Buffer[];
  /**
   * With `deferSchemas`, from the cache: puts the schemas and descriptions in the catalog; throws (a UserError, the
   * entry removed) when the entry's cannot be used. Nothing to do otherwise.
   */
  complete(): void;
  /** Writes the entry, with the listing when given; does nothing when there is nothing new to keep. */
  keep(listing?: readonly string[]): Promise<void>;
}

export async function loadCatalogCached(
  sources: string | string[],
  options: LoadOptions & CacheOptions = {},
): Promise<CatalogLoad> {
  const { cache, cacheDir, cacheLog, cacheWarn, deferSchemas, ...load } = options;
  const dir = cache === false ? undefined : (cacheDir ?? cacheDirectory());
  const given = typeof sources === "string" ? [sources] : sources;
  const read = dir ? await readSources(given, load) : undefined;
  if (!dir || !read)
    return {
      catalog: await (await import("./index.js")).loadCatalog(sources, load),
      fromCache: false,
      complete: () => {},
      keep: async () => {},
    };
  const env = load.env ?? process.env;
  // What --auth checks in the environment, checked on every start as an uncached load would.
  if (load.upstreamAuth) new (await import("./auth-sources.js")).GivenAuth({ env, options: load.upstreamAuth });
  const { key, identity } = cacheKey({ sources: read.keyed, options: load });
  const file = join(dir, `${identity}.${key}.catalog`);
  let found = await lookUp({ file, key, env, log: cacheLog });
  const problem = found && !deferSchemas ? found.complete() : undefined;
  if (problem) {
    cacheLog?.(`catalog cache: ${file} not used: ${problem}`);
    found = undefined;
  }
  const write = (header: EntryHeader, catalog: Catalog, listing?: readonly string[]): Promise<void> =>
    writeEntry({
      dir,
      file,
      prefix: `${identity}.`,
      body: entryBody({ header, catalog, ...(listing ? { listing } : {}) }),
      log: cacheLog,
      warn: cacheWarn,
    });
  if (found) {
    cacheLog?.(`catalog cache: using ${file}`);
    const { header, catalog, listing } = found;
    const complete = (): void => {
      const wrong = found?.complete();
      if (!wrong) return;
      rmSync(file, { force: true });
      throw new UserError({
        code: "E_CACHE",
        message: `the catalog cache entry ${file} cannot be used: ${wrong}; it is removed, start again (or use --no-cache)`,
      });
    };
    return {
      catalog,
      fromCache: true,
      ...(listing ? { listing } : {}),
      complete,
      keep: async (more) => {
        if (listing || !more) return;
        complete();
        await write(header, catalog, more);
      },
    };
  }
  const log: ReadLog = { given: read.given, read: [] };
  const recorder = recordingEnv(env);
  const catalog = await recordReads(log, async () =>
    (await import("./index.js")).loadCatalog(sources, { ...load, env: recorder.env }),
  );
  const why = log.read.some((r) => r.remote)
    ? "it read URLs besides its sources"
    : recorder.enumerated
      ? "it looked through the whole environment"
      : undefined;
  // Credential variables are never read for their values at load (--auth only checks they are set, above).
  const credentialVars = new Set(JSON.stringify(catalog.credentials).match(/(?<="env":")[^"]+/g) ?? []);
  const header: EntryHeader = {
    key,
    reads: log.read.map(({ location, digest }) => ({ location, digest })),
    env: [...recorder.read]
      .filter(([name]) => !credentialVars.has(name))
      .map(([name, value]) => ({ name, digest: value === undefined ? null : digestOf(value) })),
  };
  let kept = false;
  return {
    catalog,
    fromCache: false,
    complete: () => {},
    keep: async (listing) => {
      if (why) {
        cacheLog?.(`catalog cache: not keeping the catalog: ${why}`);
        return;
      }
      if (kept && !listing) return;
      kept = true;
      await write(header, catalog, listing);
    },
  };
}

/** Each source's bytes, read as the loader reads them; undefined when one cannot be (the loader says why). */
async function readSources(
  given: string[],
  options: LoadOptions,
): Promise<{ keyed: KeyedSource[]; given: Map<string, SourceText> } | undefined> {
  const keyed: KeyedSource[] = [];
  const texts = new Map<string, SourceText>();
  for (const source of given) {
    // A file is read at once (readFileSync): the loader's chunked asynchronous read of GitHub's 13 MB costs a start
    // ~10 ms of waiting. One that cannot be read is left to the loader, which says why.
    const text = isUrl(source)
      ? await readSource(source, options.allowInsecureHttp ? { allowInsecureHttp: true } : {}).catch(() => undefined)
      : readLocalSync(source);
    if (!text) return undefined;
    // Where the loader looks for it (recorded-reads.ts): the URL as given, or the file's absolute path.
    const location = isUrl(source) ? source : text.location;
    texts.set(location, text);
    keyed.push({ given: source, location, digest: digestOf(text.bytes) });
  }
  return { keyed, given: texts };
}

function readLocalSync(source: string): SourceText | undefined {
  const location = resolve(process.cwd(), source);
  try {
    return { bytes: readFileSync(location), location, remote: false, display: source };
  } catch {
    return undefined;
  }
}

async function lookUp({
  file,
  key,
  env,
  log,
}: {
  file: string;
  key: string;
  env: Environment;
  log?: ((line: string) => void) | undefined;
}): Promise<Entry | undefined> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const unused = (why: string): undefined => {
    log?.(`catalog cache: ${file} not used: ${why}`);
    return undefined;
  };
  const entry = decodeEntry({ bytes, key });
  if ("problem" in entry) return unused(entry.problem);
  for (const { location, digest } of entry.header.reads) {
    const now = readDigest(location);
    if (now !== digest) return unused(`${location} changed`);
  }
  for (const { name, digest } of entry.header.env) {
    const value = env[name];
    if ((value === undefined ? null : digestOf(value)) !== digest) return unused(`\${${name}} changed`);
  }
  return entry;
}

function readDigest(location: string): string | undefined {
  try {
    return digestOf(readFileSync(location));
  } catch {
    return undefined;
  }
}

/** The environment, noting each variable read and whether it was looked through as a whole. */
function recordingEnv(env: Environment): {
  env: Environment;
  read: Map<string, string | undefined>;
  enumerated: boolean;
} {
  const record = { read: new Map<string, string | undefined>(), enumerated: false };
  const proxy = new Proxy(env, {
    get(target, name) {
      const value = Reflect.get(target, name) as string | undefined;
      if (typeof name === "string" && !record.enumerated) record.read.set(name, value);
      return value;
    },
    ownKeys(target) {
      record.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
  return {
    env: proxy,
    read: record.read,
    get enumerated() {
      return record.enumerated;
    },
  };
}
