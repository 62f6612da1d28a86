// Serving a source as an MCP server: set up the engine (refusing to start on errors, unsafe upstreams or missing
// credentials), then run it behind the chosen transport. What `openapi-mcp serve` does, as a library call.

// The jobs are in files of their own: the choices the options make (serve-choices.ts), the provider by mode and
// profiles (providers.ts), a registry's swaps (watch.ts), the console (console-mount.ts), the transport
// (transport.ts); this file puts them in order.

import type { AuditLog } from "../runtime/audit/audit-record.js";
import { refuseSecretlessState } from "../runtime/shared/state-secret-needed.js";
import { refuseConsoleRoutes } from "./console-mount.js";
import { later } from "./later.js";
import { providerBuilder } from "./providers.js";
import { servingChoices } from "./serve-choices.js";
import type { RunningServer, ServeOptions } from "./serve-options.js";
import { type EngineSetup, setUpEngine } from "./setup.js";
import { warnAtStart } from "./start-warnings.js";
import { serveOverHttp, serveOverStdio } from "./transport.js";
import { servePublished, type Watched, watchedSources } from "./watch.js";

export async function serve(sources: string | string[], options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Over stdio, a listing from the cache is answered before the catalog's schemas are read (cache-entry.ts).
  const stdio = options.transport !== "http";
  const watched = await watchedSources({ sources: typeof sources === "string" ? [sources] : sources, options, log });
  // Over HTTP, audit lines also go to the console's Activity page once the console is on (the settings file may say).
  const activity: { log?: AuditLog } = {};
  const auditAlso: AuditLog = { write: (record) => activity.log?.write(record) };
  const setup = await setUpEngine(sources, {
    ...options,
    log,
    ...(stdio && !watched ? { deferSchemas: true } : {}),
    ...(stdio ? {} : { auditAlso }),
    ...(watched ? { first: watched.first } : {}),
    // A registry's sources may be written by console admins: they use only the secrets assigned to them.
    ...(options.registry !== undefined ? { restrictSecrets: true } : {}),
  });
  // The shared state's connection closes after the server, whose calls in flight may still use it.
  try {
    const running = await serveEngine({ setup, options, log, activity, ...(watched ? { watched } : {}) });
    return { ...running, close: () => running.close().then(setup.close) };
  } catch (error) {
    await setup.close();
    throw error;
  }
}

/** The engine set up, served: what the options choose, the provider, a registry's swaps, then the transport. */
async function serveEngine({
  setup,
  options,
  log,
  watched,
  activity,
}: {
  setup: EngineSetup;
  options: ServeOptions;
  log: (line: string) => void;
  watched?: Watched;
  activity: { log?: AuditLog };
}): Promise<RunningServer> {
  const { catalog, settings } = setup;
  const choices = servingChoices({ setup, options });
  const { mode, stdio } = choices;
  refuseConsoleRoutes({ settings, console: choices.consoleOn });
  refuseSecretlessState({ secretless: setup.secretless, console: choices.consoleOn, settings });
  if (!choices.deferred) setup.load.complete();
  warnAtStart({ setup, options, stdio, log });
  // A client waits for nothing its first answers do not need: the budget line and keeping the catalog in the
  // cache come a second after the server is up (or at close), not while the client reads the listing.
  const after = later();
  const build = providerBuilder({ setup, options, choices, after, log });
  const first = await build({ engine: setup.engine, catalog, first: true });
  const served = servePublished({ watched, first, build, setup, log });
  const registry = watched ? { registry: watched.registry } : {};
  const closing = (handle: { close(): Promise<void> }) => () => {
    served.unwatch();
    return Promise.all([handle.close(), after.run()]).then(() => {});
  };
  if (!stdio) {
    const handle = await serveOverHttp({ setup, options, choices, served, watched, activity, log });
    return { catalog, mode, url: handle.url, close: closing(handle), ...registry };
  }
  const handle = await serveOverStdio({ setup, options, choices, provider: served.provider, log });
  return { catalog, mode, close: closing(handle), closed: handle.closed, ...registry };
}
