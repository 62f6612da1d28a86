// The served provider behind its transport: streamable HTTP (with the console's mount and the sign-in routes when
// there are any) or stdio (whose session answers calls once the catalog's schemas are in).

import { UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import type { AuditLog } from "../runtime/audit/audit-record.js";
import type { ServedProvider } from "../runtime/types.js";
import type { HttpHandle } from "../server/http.js";
import type { StdioHandle } from "../server/stdio.js";
import { authoring, consoleMounts } from "./console-mount.js";
import { limits, type ServeChoices } from "./serve-choices.js";
import type { ServeOptions } from "./serve-options.js";
import type { EngineSetup } from "./setup.js";
import type { Served, Watched } from "./watch.js";
import { reloadEngine } from "../runtime/reload.js";

/** How the server names itself to clients: the API's title and version when it serves one. */
export function serverIdentity(catalog: Catalog): { name: string; version: string } {
  const name = catalog.sources.length === 1 ? catalog.sources[0]!.title : "openapi-mcp";
  const version = catalog.sources.length === 1 ? catalog.sources[0]!.version || "0.0.0" : "0.0.0";
  return { name, version };
}

export async function serveOverHttp({
  setup,
  options,
  choices: { file },
  served: { provider, view },
  watched,
  activity,
  log,
}: {
  setup: EngineSetup;
  options: ServeOptions;
  choices: ServeChoices;
  served: Served;
  watched: Watched | undefined;
  /** Where the engine's audit lines go besides --audit-log: the console's Activity log, set once it is on. */
  activity: { log?: AuditLog };
  log: (line: string) => void;
}): Promise<HttpHandle> {
  const { env, settings, routes } = setup;
  const { serveHttp } = await import("../server/http.js");
  const sessions = limits({ given: options.sessions, file: file?.sessions });
  const requests = limits({ given: options.requests, file: file?.requests });
  const allowInsecureHttp = options.allowInsecureHttp ?? file?.allowInsecureHttp;
  const mounts = await consoleMounts({
    options,
    file,
    view,
    env,
    settings,
    approvals: setup.approvals,
    activity,
    authoring: await authoring({
      ...(watched ? { registry: watched.registry } : {}),
      assignments: setup.assignments,
      // Whatever the serving engine's sources, a draft's tools use only the secrets assigned to its namespace.
      engineFor: (draft) =>
        reloadEngine({
          engine: view().engine,
          catalog: draft,
          options: { ...setup.started, secretAssignments: setup.assignments },
          log: () => {},
        }),
    }),
  });
  return serveHttp({
    provider,
    ...serverIdentity(setup.catalog),
    log,
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.stateless ? { stateless: true } : {}),
    ...(options.allowUnauthenticated ? { allowUnauthenticated: true } : {}),
    ...(sessions ? { sessions } : {}),
    ...(requests ? { requests } : {}),
    ...(options.optionNames ? { optionNames: options.optionNames } : {}),
    ...(routes.length > 0 ? { routes } : {}),
    ...(mounts.length > 0 ? { mounts } : {}),
    ...(options.auth
      ? {
          auth:
            options.auth.type === "oauth" && allowInsecureHttp
              ? { ...options.auth, allowInsecureHttp: true }
              : options.auth,
        }
      : {}),
  });
}

export async function serveOverStdio({
  setup,
  options,
  choices: { file },
  provider,
  log,
}: {
  setup: EngineSetup;
  options: ServeOptions;
  choices: ServeChoices;
  provider: ServedProvider;
  log: (line: string) => void;
}): Promise<StdioHandle> {
  if (options.console ?? file?.console)
    throw new UserError({ code: "E_OPTION", message: "--console is served over HTTP: add --transport http" });
  const { serveStdio } = await import("../server/stdio.js");
  // The SDK's session, which answers calls, starts once the schemas are in the catalog.
  return serveStdio({ provider, ...serverIdentity(setup.catalog), log, ready: () => setup.load.complete() });
}
