// The admin console wired into `serve` (HTTP only): its mount at /console, the Activity log fed with the engine's
// audit lines, and what its Author page checks, tries and publishes drafts with.

import { UserError } from "../catalog/errors.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Catalog } from "../catalog/types.js";
import type { Authoring } from "../console/author-page.js";
import type { Registry } from "../registry/registry.js";
import type { AuditLog } from "../runtime/audit/audit-record.js";
import type { Engine } from "../runtime/engine.js";
import type { HttpMount } from "../runtime/http-route.js";
import { DEFAULT_HOST } from "../runtime/options.js";
import type { OptionValues } from "../server/option-values.js";
import type { ServeOptions } from "./serve-options.js";
import type { EngineSetup } from "./setup.js";

/** Approvals routed to the console wait for nobody without one: refused at start rather than at every such call. */
export function refuseConsoleRoutes({
  settings,
  console,
}: {
  settings: EngineSetup["settings"];
  console: boolean;
}): void {
  const given = settings?.approvals;
  if (console || given === undefined) return;
  const routes = typeof given === "string" ? [given] : Object.values(given);
  if (routes.some((route) => route !== "client"))
    throw new UserError({
      code: "E_OPTION",
      message: `${settings?.file}: approvals routes calls to the console, which is off: serve with --transport http --console, or set approvals to client`,
    });
}

/** The console's mount when it is on (`--console`, or `console: true` in the settings file); none otherwise. */
export async function consoleMounts({
  options,
  file,
  view,
  env,
  settings,
  approvals,
  activity,
  authoring,
}: {
  options: ServeOptions;
  file: OptionValues | undefined;
  view: () => { catalog: Catalog; engine: Engine };
  env: EngineSetup["env"];
  settings: EngineSetup["settings"];
  approvals: EngineSetup["approvals"];
  /** Where the engine's audit lines go besides --audit-log: the console's Activity log, set here. */
  activity: { log?: AuditLog };
  authoring: Authoring;
}): Promise<HttpMount[]> {
  if (!(options.console ?? file?.console)) return [];
  const { consoleMount } = await import("../console/index.js");
  const { ActivityLog } = await import("../console/activity-log.js");
  const tokenEnv = options.consoleTokenEnv ?? file?.consoleTokenEnv;
  const lines = new ActivityLog();
  activity.log = lines;
  const mount = consoleMount({
    activity: lines,
    authoring,
    view: () => ({ ...view(), ...(settings ? { settings } : {}) }),
    env,
    approvals,
    ...(tokenEnv !== undefined ? { tokenEnv } : {}),
    oauth: options.auth?.type === "oauth",
    host: options.host ?? DEFAULT_HOST,
  });
  return [mount];
}

/**
 * What the console's Author page checks, tries and publishes with: the registry's validator and loading (its
 * namespaces, its directory) and its publish, or, without one, the validator alone and a page saying how to publish.
 * A draft's engine is the serving one given the draft's catalog (reloadEngine): the same credentials, policies,
 * limits and audit, so a try goes through the guard rails an agent's call does.
 */
export async function authoring({
  registry,
  assignments,
  engineFor,
}: {
  registry?: Registry;
  assignments: SecretAssignments;
  engineFor: (catalog: Catalog) => Engine;
}): Promise<Authoring> {
  // Without a registry a draft is still named as one would be (`<file>__<action>`), and reads no file at all.
  const drafts = registry
    ? registry.drafts(assignments)
    : new (await import("../registry/drafts.js")).Drafts({ load: () => ({}), assignments });
  return {
    check: (draft) => drafts.check(draft),
    catalog: (draft) => drafts.catalog(draft),
    engineFor,
    ...(registry ? { registry } : {}),
  };
}
