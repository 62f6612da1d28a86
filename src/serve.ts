// Serving a source as an MCP server: load the catalog, refuse to start on errors, then run the engine behind
// the chosen transport. What `openapi-mcp serve` does, as a library call.

import { UserError } from "./catalog/errors.js";
import type { Catalog } from "./catalog/types.js";
import { describe } from "./inspect/render.js";
import type { LoadOptions } from "./load/index.js";
import { loadCatalog } from "./load/index.js";
import type { Environment } from "./runtime/credentials.js";
import { Engine } from "./runtime/engine.js";
import type { OutputValidation } from "./runtime/types.js";
import { serveHttp, serveStdio } from "./server/index.js";

export interface ServeOptions extends LoadOptions {
  transport?: "stdio" | "http";
  host?: string;
  port?: number;
  stateless?: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  outputValidation?: OutputValidation;
  env?: Environment;
  log?: (line: string) => void;
}

export interface RunningServer {
  catalog: Catalog;
  /** The MCP endpoint over HTTP. */
  url?: string;
  close(): Promise<void>;
  /** Settles when a stdio session ends (the client went away). */
  closed?: Promise<void>;
}

const ERRORS_SHOWN = 10;

export async function serve(sources: string | string[], options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const catalog = await loadCatalog(sources, options);
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) {
    const shown = errors.slice(0, ERRORS_SHOWN).map((d) => `  ${describe(d)}`);
    if (errors.length > ERRORS_SHOWN) shown.push(`  … and ${errors.length - ERRORS_SHOWN} more`);
    throw new UserError({ code: "E_CATALOG", message: `not serving: ${errors.length} error${errors.length === 1 ? "" : "s"} in the source:\n${shown.join("\n")}` });
  }
  const warnings = catalog.diagnostics.length;
  if (warnings > 0) log(`openapi-mcp: ${warnings} warning${warnings === 1 ? "" : "s"} about the source; \`openapi-mcp validate\` lists them`);
  const engine = new Engine({
    catalog,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
    ...(options.outputValidation ? { outputValidation: options.outputValidation } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const name = catalog.sources.length === 1 ? catalog.sources[0]!.title : "openapi-mcp";
  const version = catalog.sources.length === 1 ? catalog.sources[0]!.version || "0.0.0" : "0.0.0";
  if (options.transport === "http") {
    const handle = await serveHttp({
      provider: engine,
      name,
      version,
      log,
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.stateless ? { stateless: true } : {}),
    });
    return { catalog, url: handle.url, close: () => handle.close() };
  }
  const handle = await serveStdio({ provider: engine, name, version, log });
  return { catalog, close: () => handle.close(), closed: handle.closed };
}
