// Serving a source as an MCP server: set up the engine (refusing to start on errors, unsafe upstreams or missing
// credentials), then run it behind the chosen transport. What `openapi-mcp serve` does, as a library call.

import { UserError } from "./catalog/errors.js";
import { plural } from "./catalog/plural.js";
import type { AuditLog } from "./runtime/audit.js";
import type { HttpMount } from "./runtime/http-route.js";
import type { Authoring } from "./console/index.js";
import { DEFAULT_HOST } from "./runtime/options.js";
import { isUrl } from "./catalog/url.js";
import type { LoadOptions } from "./load/index.js";
import type { Registry } from "./registry/registry.js";
import { SwappableProvider } from "./registry/swappable.js";
import { watchSources } from "./registry/watch.js";
import { reloadEngine } from "./runtime/reload.js";
import { refuseSecretlessState } from "./runtime/state/state-secret-needed.js";
import type { Engine } from "./runtime/engine.js";
import { profiledProvider } from "./runtime/profiled.js";
import { profileTable } from "./runtime/profiles.js";
import type { SecretAssignments } from "./catalog/secret-assignments.js";
import type { Catalog } from "./catalog/types.js";
import { servedBudget } from "./inspect/budget.js";
import type { Settings } from "./catalog/settings.js";
import type { ServeMode } from "./runtime/dynamic.js";
import type { ScriptSettings } from "./runtime/code-turn.js";
import { defined } from "./runtime/start.js";
import { fromSettings, type OptionValues, readOptionValues } from "./server/option-values.js";
import type { ServedProvider } from "./runtime/types.js";
import { servedListing } from "./serve-listing.js";
import type { AddressOptionNames, AuthConfig, RequestLimits, SessionLimits } from "./server/index.js";
import { type EngineSetup, type EngineSetupOptions, setUpEngine } from "./setup.js";

/** When what the first answers do not need runs: once a client has had them, as a rule. */
const LATER_MS = 1_000;

export interface ServeOptions extends EngineSetupOptions {
  transport?: "stdio" | "http";
  host?: string;
  port?: number;
  stateless?: boolean;
  /**
   * tools (default): one MCP tool per operation; dynamic: search_tools, describe_tool and call_tool; code:
   * search_tools, describe_tools and execute (a script calling the tools).
   */
  mode?: ServeMode;
  /** Code mode's limits on a script run; the settings file's apply where these are left out. */
  script?: Partial<ScriptSettings>;
  /** Who may use the HTTP endpoint: static bearer tokens, or OAuth access tokens checked against an issuer. */
  auth?: AuthConfig;
  /** Serve a non-loopback host without endpoint auth (refused otherwise); warns on every start. */
  allowUnauthenticated?: boolean;
  /** Idle expiry and caps of HTTP sessions; the settings file's apply where these are left out. */
  sessions?: SessionLimits;
  /** Time to receive an HTTP request and bytes of bodies still arriving; the settings file's apply where left out. */
  requests?: RequestLimits;
  /** How the user sets the port and host, for the messages when they cannot be used. */
  optionNames?: AddressOptionNames;
  /** The admin console at /console (HTTP only); the settings file's `console` applies where this is left out. */
  console?: boolean;
  /** The variable holding the console's admin token (`--console-token-env`). */
  consoleTokenEnv?: string;
  /**
   * A directory of sources served as a registry: each added, changed or removed source is checked and published
   * without a restart (registry/registry.ts). Sources given beside it are refused.
   */
  registry?: string;
  /** Watch the given sources and publish their changes as a registry does. */
  watch?: boolean;
}

export interface RunningServer {
  catalog: Catalog;
  mode: ServeMode;
  /** The MCP endpoint over HTTP. */
  url?: string;
  close(): Promise<void>;
  /** Settles when a stdio session ends (the client went away). */
  closed?: Promise<void>;
  /** With --registry or --watch: what is published (status()), and publish() into the directory. */
  registry?: Registry;
}

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
  const { catalog, engine, settings, load, routes, env } = setup;
  const stdio = options.transport !== "http";
  const file = fromFile(settings);
  const mode = options.mode ?? file?.mode ?? "tools";
  const outputSchemas = (options.outputValidation ?? settings?.outputValidation ?? "strict") === "strict";
  const table = profileTable(settings);
  const consoleOn = (options.console ?? file?.console ?? false) && !stdio;
  refuseConsoleRoutes({ settings, console: consoleOn });
  refuseSecretlessState({ secretless: setup.secretless, console: consoleOn, settings });
  // A profile's engine holds its own list of the catalog's tools: they are complete before it is made.
  const deferred = stdio && mode === "tools" && outputSchemas && load.listing !== undefined && !table;
  if (!deferred) load.complete();
  const perUser = engine.userSchemeIds();
  if (perUser.length > 0 && (stdio || !options.auth))
    log(
      `openapi-mcp: warning: ${perUser.join(", ")} take${perUser.length === 1 ? "s" : ""} each caller's own credential (credentials.<scheme>.perUser), and ${stdio ? "stdio" : "HTTP without --auth"} has no verified caller: calls needing ${perUser.length === 1 ? "it" : "them"} will say so and send nothing (serve over HTTP with --auth)`,
    );
  const warnings = catalog.diagnostics.length;
  if (warnings > 0)
    log(`openapi-mcp: ${warnings} warning${plural(warnings)} about the source; \`openapi-mcp validate\` lists them`);
  // A client waits for nothing its first answers do not need: the budget line and keeping the catalog in the
  // cache come a second after the server is up (or at close), not while the client reads the listing.
  const after = later();
  const script = limits({ given: options.script, file: file?.script });
  const approvalTimeoutMs = settings?.approvalTimeoutSeconds ? settings.approvalTimeoutSeconds * 1000 : undefined;
  /** The provider serving `catalog` through `engine`: the first at start, another at each registry publish. */
  const build = async ({ engine: from, catalog: served, first = false }: Build): Promise<ServedProvider> => {
    const code = async () => {
      const { CodeProvider } = await import("./runtime/code-mode.js");
      // The first script should not wait for a worker to start and load the engine (about a second on a busy
      // host); the worker loads it on its own thread meanwhile.
      void (await import("./runtime/sandbox/run-script.js")).warmSandbox();
      return (scoped: Engine): ServedProvider =>
        new CodeProvider({
          engine: scoped,
          catalog: served,
          ...(script ? { limits: script } : {}),
          ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}),
        });
    };
    const listing = first ? load.listing : undefined;
    if (table) {
      // Each profile's provider is made on its first request, its listing serialized then, once.
      const { DynamicProvider } = await import("./runtime/dynamic.js");
      const cached = listing ? { cached: listing } : {};
      const coded = mode === "code" ? await code() : undefined;
      const made = (scoped: Engine): ServedProvider =>
        coded
          ? coded(scoped)
          : mode === "dynamic"
            ? new DynamicProvider({ engine: scoped, catalog: served })
            : servedListing({ engine: scoped, catalog: served, ...cached, outputSchemas }).provider;
      const unverified = stdio ? "stdio" : options.auth ? undefined : "HTTP without --auth";
      if (first) after.add(() => load.keep());
      return profiledProvider({
        engine: from,
        settings,
        build: made,
        ...(unverified ? { unverified } : {}),
        // A reload warns of a profile's policy naming a tool gone, where a start refuses it.
        ...(first ? {} : { gone: log }),
      })!;
    }
    if (mode === "dynamic") {
      if (first) after.add(() => load.keep());
      return new (await import("./runtime/dynamic.js")).DynamicProvider({ engine: from, catalog: served });
    }
    if (mode === "code") {
      if (first) after.add(() => load.keep());
      return (await code())(from);
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
  let provider = await build({ engine, catalog, first: true });
  let unwatch = (): void => {};
  // What the console shows: the catalog and engine serving now (a registry swaps them).
  let current: { catalog: Catalog; engine: Engine } = { catalog, engine };
  if (watched) {
    const swappable = new SwappableProvider(provider);
    provider = swappable;
    // Calls in flight keep the provider they started on (mcp.ts takes a snapshot): only new calls see the swap.
    watched.serve(async (next) => {
      const reloaded = reloadEngine({ engine, catalog: next, options: setup.started, log });
      swappable.swap(await build({ engine: reloaded, catalog: next }));
      current = { catalog: next, engine: reloaded };
    });
    const { registry } = watched;
    unwatch = watchSources({ places: registry.watched(), refresh: () => registry.refresh(), log });
  }
  const registry = watched ? { registry: watched.registry } : {};
  const name = catalog.sources.length === 1 ? catalog.sources[0]!.title : "openapi-mcp";
  const version = catalog.sources.length === 1 ? catalog.sources[0]!.version || "0.0.0" : "0.0.0";
  const kept = after.run;
  if (options.transport === "http") {
    const { serveHttp } = await import("./server/index.js");
    const sessions = limits({ given: options.sessions, file: file?.sessions });
    const requests = limits({ given: options.requests, file: file?.requests });
    const allowInsecureHttp = options.allowInsecureHttp ?? file?.allowInsecureHttp;
    const mounts = await consoleMounts({
      options,
      file,
      view: () => current,
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
            engine: current.engine,
            catalog: draft,
            options: { ...setup.started, secretAssignments: setup.assignments },
            log: () => {},
          }),
      }),
    });
    const handle = await serveHttp({
      provider,
      name,
      version,
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
    const close = () => {
      unwatch();
      return Promise.all([handle.close(), kept()]).then(() => {});
    };
    return { catalog, mode, url: handle.url, close, ...registry };
  }
  if (options.console ?? file?.console)
    throw new UserError({ code: "E_OPTION", message: "--console is served over HTTP: add --transport http" });
  const { serveStdio } = await import("./server/stdio.js");
  // The SDK's session, which answers calls, starts once the schemas are in the catalog.
  const handle = await serveStdio({ provider, name, version, log, ready: () => load.complete() });
  const close = () => {
    unwatch();
    return Promise.all([handle.close(), kept()]).then(() => {});
  };
  return { catalog, mode, close, closed: handle.closed, ...registry };
}

/** Approvals routed to the console wait for nobody without one: refused at start rather than at every such call. */
function refuseConsoleRoutes({ settings, console }: { settings: EngineSetup["settings"]; console: boolean }): void {
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
async function consoleMounts({
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
  const { ActivityLog, consoleMount } = await import("./console/index.js");
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
async function authoring({
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
    : new (await import("./registry/drafts.js")).Drafts({ load: () => ({}), assignments });
  return {
    check: (draft) => drafts.check(draft),
    catalog: (draft) => drafts.catalog(draft),
    engineFor,
    ...(registry ? { registry } : {}),
  };
}

/** Tasks run once, LATER_MS from now or when the server closes first; `run` settles when they have run. */
function later(): { add(task: () => void | Promise<void>): void; run(): Promise<void> } {
  const tasks: Array<() => void | Promise<void>> = [];
  let done: Promise<void> | undefined;
  const timer = setTimeout(() => void run(), LATER_MS).unref();
  const run = (): Promise<void> => {
    done ??= (async () => {
      for (const task of tasks)
        await Promise.resolve()
          .then(task)
          .catch(() => {});
    })();
    return done;
  };
  return {
    add: (task) => void tasks.push(task),
    run: () => {
      clearTimeout(timer);
      return run();
    },
  };
}

/** The serving options a settings file gives (mode, session, request and script limits), checked as the options are. */
function fromFile(settings: Settings | undefined): OptionValues | undefined {
  return settings ? readOptionValues((option) => fromSettings({ option, file: settings })) : undefined;
}

/** The limits given, each falling back to the settings file's. */
function limits<T extends object>({ given, file }: { given: T | undefined; file: T | undefined }): T | undefined {
  const merged = { ...file, ...defined({ ...given }) } as T;
  return Object.keys(merged).length > 0 ? merged : undefined;
}

interface Build {
  engine: Engine;
  catalog: Catalog;
  /** The provider at start (the cache's listing, its budget line), not a registry's reload. */
  first?: boolean;
}

/** A registry (--registry) or watched files (--watch): where the first catalog comes from, and who serves the next. */
interface Watched {
  readonly registry: Registry;
  first: (load: LoadOptions) => Promise<Catalog>;
  /** Called once the server is up: a catalog published from then on is served by `apply`. */
  serve(apply: (catalog: Catalog) => Promise<void>): void;
}

async function watchedSources({
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
  const { Registry } = await import("./registry/registry.js");
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
