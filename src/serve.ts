// Serving a source as an MCP server: set up the engine (refusing to start on errors, unsafe upstreams or missing
// credentials), then run it behind the chosen transport. What `openapi-mcp serve` does, as a library call.

import { plural } from "./catalog/plural.js";
import type { Catalog } from "./catalog/types.js";
import { servedBudget } from "./inspect/budget.js";
import type { Settings } from "./catalog/settings.js";
import { DynamicProvider, type ServeMode } from "./runtime/dynamic.js";
import { defined } from "./runtime/start.js";
import { fromSettings, type OptionValues, readOptionValues } from "./server/option-values.js";
import { type AddressOptionNames, type AuthConfig, type RequestLimits, type SessionLimits, serveHttp, serveStdio } from "./server/index.js";
import { type EngineSetupOptions, setUpEngine } from "./setup.js";

export interface ServeOptions extends EngineSetupOptions {
  transport?: "stdio" | "http";
  host?: string;
  port?: number;
  stateless?: boolean;
  /** tools (default): one MCP tool per operation; dynamic: search_tools, describe_tool and call_tool. */
  mode?: ServeMode;
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
  const { catalog, engine, settings } = await setUpEngine(sources, { ...options, log });
  const file = fromFile(settings);
  const mode = options.mode ?? file?.mode ?? "tools";
  const provider = mode === "dynamic" ? new DynamicProvider({ engine, catalog }) : engine;
  const warnings = catalog.diagnostics.length;
  if (warnings > 0) log(`openapi-mcp: ${warnings} warning${plural(warnings)} about the source; \`openapi-mcp validate\` lists them`);
  // Tools mode: what every client pays up front, said once at start (the listing is built now and kept for tools/list).
  const { advice } = servedBudget({ listed: engine.listTools(), tools: catalog.tools });
  if (advice && mode === "tools") log(`openapi-mcp: ${advice}`);
  const name = catalog.sources.length === 1 ? catalog.sources[0]!.title : "openapi-mcp";
  const version = catalog.sources.length === 1 ? catalog.sources[0]!.version || "0.0.0" : "0.0.0";
  if (options.transport === "http") {
    const sessions = limits({ given: options.sessions, file: file?.sessions });
    const requests = limits({ given: options.requests, file: file?.requests });
    const allowInsecureHttp = options.allowInsecureHttp ?? file?.allowInsecureHttp;
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
      ...(options.auth ? { auth: options.auth.type === "oauth" && allowInsecureHttp ? { ...options.auth, allowInsecureHttp: true } : options.auth } : {}),
    });
    return { catalog, mode, url: handle.url, close: () => handle.close() };
  }
  const handle = await serveStdio({ provider, name, version, log });
  return { catalog, mode, close: () => handle.close(), closed: handle.closed };
}

/** The serving options a settings file gives (mode, session and request limits), checked as the options are. */
function fromFile(settings: Settings | undefined): OptionValues | undefined {
  return settings ? readOptionValues((option) => fromSettings({ option, file: settings })) : undefined;
}

/** The limits given, each falling back to the settings file's. */
function limits<T extends object>({ given, file }: { given: T | undefined; file: T | undefined }): T | undefined {
  const merged = { ...file, ...defined({ ...given }) } as T;
  return Object.keys(merged).length > 0 ? merged : undefined;
}
