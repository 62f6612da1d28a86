// What serving takes from the options and the settings file, the command line winning: stdio or HTTP, the mode,
// whether output schemas are listed, profiles, the console, code mode's limits, and whether a cached listing is
// answered before the catalog's schemas are read.

import type { Settings } from "../catalog/settings.js";
import type { ScriptSettings } from "../runtime/modes/code-turn.js";
import type { ServeMode } from "../runtime/modes/dynamic.js";
import { profileTable } from "../runtime/profiles/profiles.js";
import { defined } from "../runtime/defined.js";
import { fromSettings, type OptionValues, readOptionValues } from "../server/option-values.js";
import type { ServeOptions } from "./serve-options.js";
import type { EngineSetup } from "./setup.js";

export interface ServeChoices {
  stdio: boolean;
  /** The serving options the settings file gives. */
  file: OptionValues | undefined;
  mode: ServeMode;
  outputSchemas: boolean;
  /** The settings file's profiles, when it has some. */
  table: ReturnType<typeof profileTable>;
  consoleOn: boolean;
  script: Partial<ScriptSettings> | undefined;
  approvalTimeoutMs: number | undefined;
  /** Over stdio, a listing from the cache is answered before the catalog's schemas are read (cache-entry.ts). */
  deferred: boolean;
}

export function servingChoices({ setup, options }: { setup: EngineSetup; options: ServeOptions }): ServeChoices {
  const { settings, load } = setup;
  const stdio = options.transport !== "http";
  const file = fromFile(settings);
  const mode = options.mode ?? file?.mode ?? "tools";
  const outputSchemas = (options.outputValidation ?? settings?.outputValidation ?? "strict") === "strict";
  const table = profileTable(settings);
  const consoleOn = (options.console ?? file?.console ?? false) && !stdio;
  // A profile's engine holds its own list of the catalog's tools: they are complete before it is made.
  const deferred = stdio && mode === "tools" && outputSchemas && load.listing !== undefined && !table;
  return {
    stdio,
    file,
    mode,
    outputSchemas,
    table,
    consoleOn,
    script: limits({ given: options.script, file: file?.script }),
    approvalTimeoutMs: settings?.approvalTimeoutSeconds ? settings.approvalTimeoutSeconds * 1000 : undefined,
    deferred,
  };
}

/** The serving options a settings file gives (mode, session, request and script limits), checked as the options are. */
function fromFile(settings: Settings | undefined): OptionValues | undefined {
  return settings ? readOptionValues((option) => fromSettings({ option, file: settings })) : undefined;
}

/** The limits given, each falling back to the settings file's. */
export function limits<T extends object>({
  given,
  file,
}: {
  given: T | undefined;
  file: T | undefined;
}): T | undefined {
  const merged = { ...file, ...defined({ ...given }) } as T;
  return Object.keys(merged).length > 0 ? merged : undefined;
}
