// The provider serving a catalog through an engine, by mode: tools (the listing serialized once, from the cache's
// when there is one), dynamic or code; with profiles, one such provider per profile, made on its first request.
// Made at start, and again at each registry publish.

import type { Catalog } from "../catalog/types.js";
import { servedBudget } from "../inspect/budget.js";
import type { Engine } from "../runtime/engine.js";
import { profiledProvider } from "../runtime/profiles/profiled.js";
import type { ServedProvider } from "../runtime/types.js";
import type { Later } from "./later.js";
import type { ServeChoices } from "./serve-choices.js";
import { servedListing } from "./serve-listing.js";
import type { ServeOptions } from "./serve-options.js";
import type { EngineSetup } from "./setup.js";

export interface Build {
  engine: Engine;
  catalog: Catalog;
  /** The provider at start (the cache's listing, its budget line), not a registry's reload. */
  first?: boolean;
}

export type BuildProvider = (build: Build) => Promise<ServedProvider>;

interface Builder {
  setup: EngineSetup;
  options: ServeOptions;
  choices: ServeChoices;
  /** Where the work the first answers do not need goes (keeping the catalog, the budget line). */
  after: Later;
  log: (line: string) => void;
}

/** The provider serving `catalog` through `engine`: the first at start, another at each registry publish. */
export function providerBuilder(builder: Builder): BuildProvider {
  const { setup, choices, after, log } = builder;
  const { load } = setup;
  const { mode, outputSchemas } = choices;
  return async ({ engine: from, catalog: served, first = false }) => {
    const listing = first ? load.listing : undefined;
    if (choices.table) return profiled({ builder, from, served, first, ...(listing ? { listing } : {}) });
    if (mode === "dynamic") {
      if (first) after.add(() => load.keep());
      return new (await import("../runtime/modes/dynamic.js")).DynamicProvider({ engine: from, catalog: served });
    }
    if (mode === "code") {
      if (first) after.add(() => load.keep());
      return (await codeProviders({ choices, served }))(from);
    }
    // The listing is serialized now, once, and kept for tools/list; what it costs every client is said once.
    const listed = servedListing({
      engine: from,
      catalog: served,
      ...(listing ? { cached: listing } : {}),
      outputSchemas,
    });
    if (first) {
      after.add(() => {
        const { advice } = servedBudget({ listed: listed.listing, tools: served.tools });
        if (advice) log(`openapi-mcp: ${advice}`);
      });
      after.add(() => load.keep(listed.whole));
    }
    return listed.provider;
  };
}

/** With profiles: each profile's provider is made on its first request, its listing serialized then, once. */
async function profiled({
  builder: { setup, options, choices, after, log },
  from,
  served,
  first,
  listing,
}: {
  builder: Builder;
  from: Engine;
  served: Catalog;
  first: boolean;
  listing?: Buffer[];
}): Promise<ServedProvider> {
  const { mode, outputSchemas, stdio } = choices;
  const { DynamicProvider } = await import("../runtime/modes/dynamic.js");
  const cached = listing ? { cached: listing } : {};
  const coded = mode === "code" ? await codeProviders({ choices, served }) : undefined;
  const made = (scoped: Engine): ServedProvider =>
    coded
      ? coded(scoped)
      : mode === "dynamic"
        ? new DynamicProvider({ engine: scoped, catalog: served })
        : servedListing({ engine: scoped, catalog: served, ...cached, outputSchemas }).provider;
  const unverified = stdio ? "stdio" : options.auth ? undefined : "HTTP without --auth";
  if (first) after.add(() => setup.load.keep());
  return profiledProvider({
    engine: from,
    settings: setup.settings,
    build: made,
    ...(unverified ? { unverified } : {}),
    // A reload warns of a profile's policy naming a tool gone, where a start refuses it.
    ...(first ? {} : { gone: log }),
  })!;
}

/** Code mode's provider for an engine (a profile's view, or the whole). */
async function codeProviders({
  choices: { script, approvalTimeoutMs },
  served,
}: {
  choices: ServeChoices;
  served: Catalog;
}): Promise<(scoped: Engine) => ServedProvider> {
  const { CodeProvider } = await import("../runtime/modes/code-mode.js");
  // The first script should not wait for a worker to start and load the engine (about a second on a busy
  // host); the worker loads it on its own thread meanwhile.
  void (await import("../runtime/modes/sandbox/run-script.js")).warmSandbox();
  return (scoped: Engine): ServedProvider =>
    new CodeProvider({
      engine: scoped,
      catalog: served,
      ...(script ? { limits: script } : {}),
      ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}),
    });
}
