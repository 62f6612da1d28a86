// A registry (--registry) or watched files (--watch): the first catalog comes from it, and each catalog it publishes
// is served in place of the last, through the same engine's guard rails (reloadEngine) and a provider swapped whole.

import { UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import { isUrl } from "../catalog/url.js";
import type { LoadOptions } from "../load/sources.js";
import type { Registry } from "../registry/registry.js";
import { SwappableProvider } from "../registry/swappable.js";
import { watchSources } from "../registry/watch.js";
import type { Engine } from "../runtime/engine.js";
import { reloadEngine } from "../runtime/reload.js";
import type { ServedProvider } from "../runtime/types.js";
import type { BuildProvider } from "./providers.js";
import type { ServeOptions } from "./serve-options.js";
import type { EngineSetup } from "./setup.js";

/** A registry (--registry) or watched files (--watch): where the first catalog comes from, and who serves the next. */
export interface Watched {
  readonly registry: Registry;
  first: (load: LoadOptions) => Promise<Catalog>;
  /** Called once the server is up: a catalog published from then on is served by `apply`. */
  serve(apply: (catalog: Catalog) => Promise<void>): void;
}

/** What is served now: the provider, the catalog and engine behind it (a registry swaps them), and how to stop. */
export interface Served {
  provider: ServedProvider;
  view: () => { catalog: Catalog; engine: Engine };
  unwatch: () => void;
}

export async function watchedSources({
  sources,
  options,
  log,
}: {
  sources: string[];
  options: ServeOptions;
  log: (line: string) => void;
}): Promise<Watched | undefined> {
  if (options.registry === undefined && !options.watch) return undefined;
  if (options.registry !== undefined && sources.length > 0)
    throw new UserError({
      code: "E_OPTION",
      message: `--registry serves the sources in ${options.registry}: move ${sources.join(", ")} into it, or serve them with --watch instead`,
    });
  if (options.registry === undefined && sources.some((source) => isUrl(source)))
    throw new UserError({ code: "E_OPTION", message: "--watch watches files, not URLs" });
  const { Registry } = await import("../registry/registry.js");
  let apply = async (_: Catalog): Promise<void> => {
    throw new UserError({ code: "E_REGISTRY", message: "not published: the server is not serving yet" });
  };
  let registry: Registry | undefined;
  return {
    get registry(): Registry {
      return registry!;
    },
    first: (load) => {
      registry = new Registry({
        ...(options.registry !== undefined ? { dir: options.registry } : { files: sources }),
        load,
        apply: (catalog) => apply(catalog),
        log,
      });
      return registry.start();
    },
    serve: (serving) => {
      apply = serving;
    },
  };
}

/** The first provider, swapped for a new one at each publish; without a registry, the first for good. */
export function servePublished({
  watched,
  first,
  build,
  setup,
  log,
}: {
  watched: Watched | undefined;
  first: ServedProvider;
  build: BuildProvider;
  setup: EngineSetup;
  log: (line: string) => void;
}): Served {
  const { engine, catalog } = setup;
  // What the console shows: the catalog and engine serving now.
  let current: { catalog: Catalog; engine: Engine } = { catalog, engine };
  const view = () => current;
  if (!watched) return { provider: first, view, unwatch: () => {} };
  const swappable = new SwappableProvider(first);
  // Calls in flight keep the provider they started on (mcp.ts takes a snapshot): only new calls see the swap.
  watched.serve(async (next) => {
    const reloaded = reloadEngine({ engine, catalog: next, options: setup.started, log });
    swappable.swap(await build({ engine: reloaded, catalog: next }));
    current = { catalog: next, engine: reloaded };
  });
  const { registry } = watched;
  const unwatch = watchSources({ places: registry.watched(), refresh: () => registry.refresh(), log });
  return { provider: swappable, view, unwatch };
}
