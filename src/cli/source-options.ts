// The options of every command that loads a source, and the load itself (from the catalog cache when it holds it).

import { type Command, InvalidArgumentError } from "commander";
import type { Catalog } from "../catalog/types.js";
import { type CacheOptions, loadCatalogCached } from "../load/cache.js";
import type { LoadOptions } from "../load/sources.js";
import { runtimeOption } from "../runtime/options.js";
import { collect, commanderOption } from "./options.js";

export interface SourceFlags {
  baseUrl?: string;
  include?: string[];
  exclude?: string[];
  allowRef: string[];
  allowInsecureHttp?: boolean;
  auth: string[];
  serverVar: Array<[string, string]>;
  /** false with --no-cache. */
  cache: boolean;
}

/** The options of every command that loads a source; the table's among them are declared from it. */
export function withSourceOptions(command: Command): Command {
  const table = (name: string) => commanderOption(runtimeOption(name));
  return command
    .addOption(table("base-url"))
    .addOption(table("include"))
    .addOption(table("exclude"))
    .option(
      "--allow-ref <dir|url-prefix>",
      "let external $refs also read this directory or URL prefix (repeatable)",
      collect,
      [],
    )
    .addOption(table("allow-insecure-http"))
    .option(
      "--auth <[source-id=]kind:…>",
      "credentials every tool of a source sends, replacing what its document declares: bearer:VAR, header:NAME:VAR, query:NAME:VAR, basic:USERVAR:PASSVAR (VAR: an environment variable's name, or file:PATH, cmd:NAME; repeatable)",
      collect,
      [],
    )
    .option(
      "--server-var <name=value>",
      "set a server variable of the document's servers (repeatable)",
      serverVariable,
      [],
    )
    .addOption(table("no-cache"));
}

function serverVariable(value: string, previous: Array<[string, string]>): Array<[string, string]> {
  const equals = value.indexOf("=");
  if (equals <= 0) throw new InvalidArgumentError("expected name=value, e.g. --server-var region=eu");
  return [...previous, [value.slice(0, equals), value.slice(equals + 1)]];
}

export function loadOptions(flags: SourceFlags): LoadOptions & CacheOptions {
  return {
    ...(flags.cache === false ? { cache: false } : {}),
    // With --debug every reason an entry is not used or kept; without, once, that the cache cannot be written.
    ...(process.argv.includes("--debug")
      ? { cacheLog: (line: string) => process.stderr.write(`openapi-mcp: ${line}\n`) }
      : { cacheWarn: (line: string) => process.stderr.write(`openapi-mcp: warning: ${line} (--no-cache skips it)\n`) }),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    include: flags.include ?? [],
    exclude: flags.exclude ?? [],
    allowRefs: flags.allowRef,
    ...(flags.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    ...(flags.auth.length > 0 ? { upstreamAuth: flags.auth } : {}),
    ...(flags.serverVar.length > 0 ? { serverVariables: Object.fromEntries(flags.serverVar) } : {}),
    progress: (line) => process.stderr.write(`openapi-mcp: ${line}\n`),
  };
}

/** The catalog, from the cache when it holds it, kept there when not. */
export async function load(sources: string | string[], options: LoadOptions & CacheOptions): Promise<Catalog> {
  const loaded = await loadCatalogCached(sources, options);
  await loaded.keep();
  return loaded.catalog;
}
