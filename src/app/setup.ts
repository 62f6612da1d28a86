// Everything `serve` and `call` do before the first call: read the settings, load the catalog, refuse what is
// unsafe or incomplete (errors in the source, plain http upstreams, credentials a tool cannot do without), and
// build the engine with its policies, limits and audit log. Command-line options win over the settings file.

import { UserError } from "../catalog/errors.js";
import { plural } from "../catalog/plural.js";
import { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Catalog } from "../catalog/types.js";
import { type CacheOptions, type CatalogLoad, loadCatalogCached } from "../load/cache.js";
import type { LoadOptions } from "../load/sources.js";
import type { Settings } from "../catalog/settings.js";
import type { Environment } from "../runtime/credentials/credentials.js";
import type { Engine } from "../runtime/engine.js";
import { BoundedApprovalQueue } from "../runtime/approvals/approval-bounds.js";
import { type ApprovalQueue, MemoryApprovalQueue } from "../runtime/approvals/approval-queue.js";
import { checkRoutes } from "../runtime/approvals/approval-routes.js";
import { credentialEnvironment, withSettings } from "../runtime/settings.js";
import type { HttpRoute } from "../runtime/http-route.js";
import { defined } from "../runtime/defined.js";
import { type StartOptions, startEngine } from "../runtime/start.js";
import { openSharedState } from "../runtime/shared/shared-state.js";
import { userCredentialModes } from "../runtime/credentials/user-credential-modes.js";

/** The engine's own start options (policies apply after the settings file's), plus the settings file. */
export interface EngineSetupOptions
  extends LoadOptions,
    CacheOptions,
    Pick<
      StartOptions,
      | "timeoutMs"
      | "maxResponseBytes"
      | "outputValidation"
      | "responseText"
      | "markResponseText"
      | "state"
      | "stateFallback"
      | "stateFail"
      | "policies"
      | "deniedTools"
      | "approvalTimeoutMs"
      | "auditLog"
      | "auditAlso"
      | "onlyTools"
      | "tokens"
      | "requireCredentials"
      | "allowReadableSecretFiles"
      | "stateSecrets"
    > {
  /** A settings file (`--config`). */
  config?: string;
  env?: Environment;
  log?: (line: string) => void;
  /** Where the catalog comes from instead of `sources` (a registry: registry/registry.ts), loaded with these options. */
  first?: (load: LoadOptions) => Promise<Catalog>;
  /**
   * The sources are a registry directory's (console admins may write them): each reads only the secrets the settings
   * file's `registrySecrets` assigns to its namespace, and sends its credentials only to the origins assigned.
   */
  restrictSecrets?: boolean;
}

export interface EngineSetup {
  catalog: Catalog;
  /** The catalog as loaded, with what the cache held and a way to keep it. */
  load: CatalogLoad;
  engine: Engine;
  settings?: Settings;
  env: Environment;
  /** Calls waiting for a person in the console (settings `approvals`, the console's Try it page). */
  approvals: ApprovalQueue;
  /** Routes the HTTP server adds (the per-user sign-in's callback and sign-out). */
  routes: HttpRoute[];
  /** Closes what the engine holds open beyond the process's memory (the --state Redis connection). */
  close(): Promise<void>;
  /** True for `--state redis://…` without --state-secret: no approval queue or caller budget is shared. */
  secretless?: boolean;
  /** What the engine was started with, for a reload with another catalog (runtime/reload.ts). */
  started: StartOptions;
  /** The settings file's `registrySecrets`: what registry sources and console drafts may use. */
  assignments: SecretAssignments;
}

const ERRORS_SHOWN = 10;

export async function setUpEngine(sources: string | string[], options: EngineSetupOptions = {}): Promise<EngineSetup> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const settings = options.config
    ? await (await import("../load/settings.js")).readSettings(options.config)
    : undefined;
  const allowInsecureHttp = options.allowInsecureHttp ?? settings?.allowInsecureHttp ?? false;
  const include = filterList({ given: options.include, settings, which: "include" });
  const exclude = filterList({ given: options.exclude, settings, which: "exclude" });
  const loadOptions: LoadOptions = {
    ...defined({ allowRefs: options.allowRefs, upstreamAuth: options.upstreamAuth, env: options.env }),
    ...defined({ progress: options.progress }),
    allowInsecureHttp,
    ...defined({ baseUrl: options.baseUrl ?? settings?.baseUrl }),
    ...serverVariables({ options, settings }),
    include: include.list,
    exclude: exclude.list,
    filterPlaces: defined({ include: include.place, exclude: exclude.place }),
    ...(settings?.auth ? { settingsAuth: { file: settings.file, auth: settings.auth } } : {}),
  };
  const assignments = secretAssignments(settings);
  const restricted = options.restrictSecrets ? { secretAssignments: assignments } : {};
  const load = options.first
    ? loaded(await options.first({ ...loadOptions, ...restricted }))
    : await loadCatalogCached(sources, {
        ...options,
        ...loadOptions,
        ...defined({ cache: options.cache ?? settings?.cache }),
      });
  const { catalog } = load;
  await refuseOnErrors(catalog);

  const env = settings
    ? credentialEnvironment({ settings, catalog, env: options.env ?? process.env })
    : (options.env ?? process.env);
  const given = withSettings({ settings, given: { ...options, allowInsecureHttp } });
  // Redis, when --state names one: unreachable now stops the start (or falls back to memory when told to).
  const clientCredentials = Object.values(catalog.credentials).some((scheme) => scheme.type === "oauth2");
  const shared = await openSharedState({ ...given, clientCredentials, log });
  // A start refused from here on closes the connection it opened.
  try {
    // Per-user credentials (credentials.<scheme>.perUser) and the routes they add to the HTTP server.
    const modes = await userCredentialModes({ settings, catalog, env, allowInsecureHttp, shared, log });
    const approvals = new BoundedApprovalQueue(shared.approvals ?? new MemoryApprovalQueue());
    const approvalRoutes =
      settings?.approvals !== undefined
        ? checkRoutes({ routes: settings.approvals, toolNames: catalog.tools.map((tool) => tool.name) })
        : undefined;
    const started: StartOptions = {
      catalog,
      env,
      log,
      ...defined({
        userCredentials: modes.userCredentials,
        limiter: shared.limiter,
        tokens: shared.tokens,
        usedNonces: shared.usedNonces,
      }),
      approvals: { queue: approvals, ...defined({ routes: approvalRoutes }) },
      ...restricted,
      ...given,
      ...defined({ tokens: options.tokens, onlyTools: options.onlyTools, auditAlso: options.auditAlso }),
    };
    const engine = startEngine(started);
    const close = () => shared.close();
    return {
      catalog,
      load,
      engine,
      env,
      approvals,
      routes: modes.routes,
      close,
      started,
      assignments,
      ...(settings ? { settings } : {}),
      ...(shared.secretless ? { secretless: true } : {}),
    };
  } catch (error) {
    await shared.close();
    throw error;
  }
}

/** The settings file's `registrySecrets`, knowing which schemes take each caller's own value (no variable read). */
function secretAssignments(settings: Settings | undefined): SecretAssignments {
  const perUser = Object.entries(settings?.credentials ?? {}).flatMap(([id, given]) =>
    typeof given === "object" && given.perUser !== undefined ? [id] : [],
  );
  return new SecretAssignments({
    ...defined({ registrySecrets: settings?.registrySecrets, file: settings?.file }),
    perUser,
  });
}

/** A filter list on the command line replaces the settings file's list of the same kind. */
function filterList({
  given = [],
  settings,
  which,
}: {
  given?: string[] | undefined;
  settings?: Settings | undefined;
  which: "include" | "exclude";
}): { list: string[]; place?: string } {
  const fromSettings = settings?.[which] ?? [];
  return given.length > 0 || fromSettings.length === 0
    ? { list: given }
    : { list: fromSettings, place: `settings file ${settings?.file}` };
}

/** The settings file's server variables under the command line's, each with where it was set. */
function serverVariables({
  options,
  settings,
}: {
  options: LoadOptions;
  settings: Settings | undefined;
}): Pick<LoadOptions, "serverVariables" | "serverVariablePlaces"> {
  const fromSettings = Object.entries(settings?.serverVariables ?? {}).filter(
    ([name]) => !Object.hasOwn(options.serverVariables ?? {}, name),
  );
  if (fromSettings.length === 0) return {};
  return {
    serverVariables: {
      ...Object.fromEntries(fromSettings.map(([name, value]) => [name, String(value)])),
      ...options.serverVariables,
    },
    serverVariablePlaces: {
      ...Object.fromEntries(fromSettings.map(([name]) => [name, `${settings?.file}#/serverVariables/${name}`])),
      ...options.serverVariablePlaces,
    },
  };
}

async function refuseOnErrors(catalog: Catalog): Promise<void> {
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return;
  const { diagnosticLine } = await import("../inspect/render.js");
  const shown = errors.slice(0, ERRORS_SHOWN).map((d) => `  ${diagnosticLine(d)}`);
  if (errors.length > ERRORS_SHOWN) shown.push(`  … and ${errors.length - ERRORS_SHOWN} more`);
  throw new UserError({
    code: "E_CATALOG",
    message: `not starting: ${errors.length} error${plural(errors.length)} in the source:\n${shown.join("\n")}`,
  });
}

/** A catalog loaded elsewhere (a registry's), as the cache's load would give it: nothing to complete or keep. */
function loaded(catalog: Catalog): CatalogLoad {
  return { catalog, fromCache: false, complete: () => {}, keep: async () => {} };
}
