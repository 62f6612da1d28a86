// Serving a source as an MCP server: set up the engine (refusing to start on errors, unsafe upstreams or missing
// credentials), then run it behind the chosen transport. What `openapi-mcp serve` does, as a library call.

import type { Catalog } from "./catalog/types.js";
import { servedBudget } from "./inspect/budget.js";
import { DynamicProvider, type ServeMode } from "./runtime/dynamic.js";
import { type AuthConfig, serveHttp, serveStdio } from "./server/index.js";
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
  const mode = options.mode ?? settings?.mode ?? "tools";
  const provider = mode === "dynamic" ? new DynamicProvider({ engine, catalog }) : engine;
  const warnings = catalog.diagnostics.length;
  if (warnings > 0) log(`openapi-mcp: ${warnings} warning${warnings === 1 ? "" : "s"} about the source; \`openapi-mcp validate\` lists them`);
  // Tools mode: what every client pays up front, said once at start (the listing is built now and kept for tools/list).
  const { advice } = servedBudget({ listed: engine.listTools(), tools: catalog.tools });
  if (advice && mode === "tools") log(`openapi-mcp: ${advice}`);
  const name = catalog.sources.length === 1 ? catalog.sources[0]!.title : "openapi-mcp";
  const version = catalog.sources.length === 1 ? catalog.sources[0]!.version || "0.0.0" : "0.0.0";
  if (options.transport === "http") {
    const handle = await serveHttp({
      provider,
      name,
      version,
      log,
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.stateless ? { stateless: true } : {}),
      ...(options.auth ? { auth: options.auth.type === "oauth" && options.allowInsecureHttp ? { ...options.auth, allowInsecureHttp: true } : options.auth } : {}),
    });
    return { catalog, mode, url: handle.url, close: () => handle.close() };
  }
  const handle = await serveStdio({ provider, name, version, log });
  return { catalog, mode, close: () => handle.close(), closed: handle.closed };
}
