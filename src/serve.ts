// Serving a source as an MCP server: set up the engine (refusing to start on errors, unsafe upstreams or missing
// credentials), then run it behind the chosen transport. What `openapi-mcp serve` does, as a library call.

import { UserError } from "./catalog/errors.js";
import { plural } from "./catalog/plural.js";
import type { AuditLog } from "./runtime/audit.js";
import type { HttpMount } from "./runtime/http-route.js";
import { DEFAULT_HOST } from "./runtime/options.js";
import type { Engine } from "./runtime/engine.js";
import { profiledProvider } from "./runtime/profiled.js";
import { profileTable } from "./runtime/profiles.js";
import type { Catalog } from "./catalog/types.js";
import { servedBudget } from "./inspect/budget.js";
import type { Settings } from "./catalog/settings.js";
import type { ServeMode } from "./runtime/dynamic.js";
import type { ScriptLimits } from "./runtime/sandbox/run-script.js";
import { defined } from "./runtime/start.js";
import { fromSettings, type OptionValues, readOptionValues } from "./server/option-values.js";
import type { ToolProvider } from "./runtime/types.js";
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
  script?: Partial<ScriptLimits>;
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
}

export interface RunningServer {
  catalog: Catalog;
  mode: ServeMode;
  /** The MCP endpoint over HTTP. */
  url?: string;
  close(): Promise<void>;
  /** Settles when a stdio session ends (the client went away). */
  closed?: Promise<void>;
}

export async function serve(sources: string | string[], options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Over stdio, a listing from the cache is answered before the catalog's schemas are read (cache-entry.ts).
  const stdio = options.transport !== "http";
  // Over HTTP, audit lines also go to the console's Activity page once the console is on (the settings file may say).
  const activity: { log?: AuditLog } = {};
  const auditAlso: AuditLog = { write: (record) => activity.log?.write(record) };
  const setup = await setUpEngine(sources, { ...options, log, ...(stdio ? { deferSchemas: true } : { auditAlso }) });
  // The shared state's connection closes after the server, whose calls in flight may still use it.
  try {
    const running = await serveEngine({ setup, options, log, activity });
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
  activity,
}: {
  setup: EngineSetup;
  options: ServeOptions;
  log: (line: string) => void;
  activity: { log?: AuditLog };
}): Promise<RunningServer> {
  const { catalog, engine, settings, load, routes, env } = setup;
  const stdio = options.transport !== "http";
  const file = fromFile(settings);
  const mode = options.mode ?? file?.mode ?? "tools";
  const outputSchemas = (options.outputValidation ?? settings?.outputValidation ?? "strict") === "strict";
  const table = profileTable(settings);
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
  let provider: ToolProvider;
  // A client waits for nothing its first answers do not need: the budget line and keeping the catalog in the
  // cache come a second after the server is up (or at close), not while the client reads the listing.
  const after = later();
  const script = limits({ given: options.script, file: file?.script });
  const approvalTimeoutMs = settings?.approvalTimeoutSeconds ? settings.approvalTimeoutSeconds * 1000 : undefined;
  const code = async () => {
    const { CodeProvider } = await import("./runtime/code-mode.js");
    // The first script should not wait for a worker to start and load the engine (about a second on a busy host);
    // the worker loads it on its own thread meanwhile.
    void (await import("./runtime/sandbox/run-script.js")).warmSandbox();
    return (scoped: Engine): ToolProvider =>
      new CodeProvider({
        engine: scoped,
        catalog,
        ...(script ? { limits: script } : {}),
        ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}),
      });
  };
  if (table) {
    // Each profile's provider is made on its first request, its listing serialized then, once.
    const { DynamicProvider } = await import("./runtime/dynamic.js");
    const cached = load.listing ? { cached: load.listing } : {};
    const coded = mode === "code" ? await code() : undefined;
    const build = (scoped: Engine): ToolProvider =>
      coded
        ? coded(scoped)
        : mode === "dynamic"
          ? new DynamicProvider({ engine: scoped, catalog })
          : servedListing({ engine: scoped, catalog, ...cached, outputSchemas }).provider;
    const unverified = stdio ? "stdio" : options.auth ? undefined : "HTTP without --auth";
    provider = profiledProvider({ engine, settings, build, ...(unverified ? { unverified } : {}) })!;
    after.add(() => load.keep());
  } else if (mode === "dynamic") {
    provider = new (await import("./runtime/dynamic.js")).DynamicProvider({ engine, catalog });
    after.add(() => load.keep());
  } else if (mode === "code") {
    provider = (await code())(engine);
    after.add(() => load.keep());
  } else {
    // The listing is serialized now, once, and kept for tools/list; what it costs every client is said once.
    const served = servedListing({ engine, catalog, ...(load.listing ? { cached: load.listing } : {}), outputSchemas });
    provider = served.provider;
    after.add(() => {
      const { advice } = servedBudget({ listed: served.listing, tools: catalog.tools });
      if (advice) log(`openapi-mcp: ${advice}`);
    });
    after.add(() => load.keep(served.whole));
  }
  const name = catalog.sources.length === 1 ? catalog.sources[0]!.title : "openapi-mcp";
  const version = catalog.sources.length === 1 ? catalog.sources[0]!.version || "0.0.0" : "0.0.0";
  const kept = after.run;
  if (options.transport === "http") {
    const { serveHttp } = await import("./server/index.js");
    const sessions = limits({ given: options.sessions, file: file?.sessions });
    const requests = limits({ given: options.requests, file: file?.requests });
    const allowInsecureHttp = options.allowInsecureHttp ?? file?.allowInsecureHttp;
    const mounts = await consoleMounts({ options, file, setup: { catalog, engine, env, settings }, log, activity });
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
    return { catalog, mode, url: handle.url, close: () => Promise.all([handle.close(), kept()]).then(() => {}) };
  }
  if (options.console ?? file?.console)
    throw new UserError({ code: "E_OPTION", message: "--console is served over HTTP: add --transport http" });
  const { serveStdio } = await import("./server/stdio.js");
  // The SDK's session, which answers calls, starts once the schemas are in the catalog.
  const handle = await serveStdio({ provider, name, version, log, ready: () => load.complete() });
  return { catalog, mode, close: () => Promise.all([handle.close(), kept()]).then(() => {}), closed: handle.closed };
}

/** The console's mount when it is on (`--console`, or `console: true` in the settings file); none otherwise. */
async function consoleMounts({
  options,
  file,
  setup,
  log,
  activity,
}: {
  options: ServeOptions;
  file: OptionValues | undefined;
  setup: Pick<EngineSetup, "catalog" | "engine" | "env" | "settings">;
  log: (line: string) => void;
  /** Where the engine's audit lines go besides --audit-log: the console's Activity log, set here. */
  activity: { log?: AuditLog };
}): Promise<HttpMount[]> {
  if (!(options.console ?? file?.console)) return [];
  const { ActivityLog, consoleMount } = await import("./console/index.js");
  const { catalog, engine, env, settings } = setup;
  const tokenEnv = options.consoleTokenEnv ?? file?.consoleTokenEnv;
  const lines = new ActivityLog();
  activity.log = lines;
  const mount = consoleMount({
    activity: lines,
    view: () => ({ catalog, engine, ...(settings ? { settings } : {}) }),
    env,
    ...(tokenEnv !== undefined ? { tokenEnv } : {}),
    oauth: options.auth?.type === "oauth",
    host: options.host ?? DEFAULT_HOST,
    log,
  });
  return [mount];
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
