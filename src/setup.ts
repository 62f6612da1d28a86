// Everything `serve` and `call` do before the first call: read the settings, load the catalog, refuse what is
// unsafe or incomplete (errors in the source, plain http upstreams, credentials a tool cannot do without), and
// build the engine with its policies, limits and audit log. Command-line options win over the settings file.

import { UserError } from "./catalog/errors.js";
import type { Catalog } from "./catalog/types.js";
import { describe } from "./inspect/render.js";
import type { LoadOptions } from "./load/index.js";
import { loadCatalog } from "./load/index.js";
import { credentialEnvironment, readSettings, type Settings } from "./load/settings.js";
import { type AuditLog, openAuditLog } from "./runtime/audit.js";
import { describeMissingCredentials, type Environment, missingCredentials } from "./runtime/credentials.js";
import { Engine } from "./runtime/engine.js";
import { checkUpstreamUrls } from "./runtime/https.js";
import type { TokenSource } from "./runtime/oauth.js";
import { DEFAULT_POLICIES, type DenyMode, parsePolicies } from "./runtime/policy.js";
import type { OutputValidation } from "./runtime/types.js";

export interface EngineSetupOptions extends LoadOptions {
  /** A settings file (`--config`). */
  config?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  outputValidation?: OutputValidation;
  /** `<target>=<allow|approve|deny>` entries, applied after the settings file's. */
  policies?: string[];
  deniedTools?: DenyMode;
  approvalTimeoutMs?: number;
  /** A file for JSON lines, or "-" for stderr. */
  auditLog?: string;
  env?: Environment;
  log?: (line: string) => void;
  /** Check only what these tools need (`call`); every tool by default. */
  onlyTools?: string[];
  /** Where OAuth tokens come from (a dry run passes one that fetches nothing). */
  tokens?: TokenSource;
}

export interface EngineSetup {
  catalog: Catalog;
  engine: Engine;
  settings?: Settings;
  env: Environment;
}

const ERRORS_SHOWN = 10;

export async function setUpEngine(sources: string | string[], options: EngineSetupOptions = {}): Promise<EngineSetup> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const settings = options.config ? await readSettings(options.config) : undefined;
  const allowInsecureHttp = options.allowInsecureHttp ?? settings?.allowInsecureHttp ?? false;
  const catalog = await loadCatalog(sources, {
    ...options,
    allowInsecureHttp,
    ...pick({ baseUrl: options.baseUrl ?? settings?.baseUrl }),
    include: options.include?.length ? options.include : (settings?.include ?? []),
    exclude: options.exclude?.length ? options.exclude : (settings?.exclude ?? []),
  });
  refuseOnErrors(catalog);

  const upstreams = checkUpstreamUrls(catalog, { allowInsecureHttp });
  if (upstreams.errors.length > 0) {
    throw new UserError({ code: "E_HTTPS_REQUIRED", message: `not starting: ${upstreams.errors.join("; ")}` });
  }
  // Said on every start: an opt-out nobody notices is not an opt-out anyone chose.
  for (const warning of upstreams.warnings) log(`openapi-mcp: WARNING --allow-insecure-http: ${warning}`);

  const env = settings ? credentialEnvironment({ settings, catalog, env: options.env ?? process.env }) : (options.env ?? process.env);
  const needed = options.onlyTools ? { ...catalog, tools: catalog.tools.filter((t) => options.onlyTools?.includes(t.name)) } : catalog;
  const missing = missingCredentials(needed, env);
  if (missing.length > 0) {
    throw new UserError({ code: "E_CREDENTIALS", message: `not starting: credentials are missing:\n${describeMissingCredentials(missing)}` });
  }

  const toolNames = catalog.tools.map((t) => t.name);
  const base = { ...DEFAULT_POLICIES, denyMode: options.deniedTools ?? settings?.deniedTools ?? DEFAULT_POLICIES.denyMode };
  const fromSettings = Object.entries(settings?.policy ?? {}).map(([target, decision]) => `${target}=${decision}`);
  const policies = parsePolicies([...fromSettings, ...(options.policies ?? [])], toolNames, base);
  const auditTarget = options.auditLog ?? settings?.auditLog;
  const audit: AuditLog | undefined = auditTarget ? openAuditLog(auditTarget) : undefined;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? (settings?.approvalTimeoutSeconds !== undefined ? settings.approvalTimeoutSeconds * 1000 : undefined);

  const engine = new Engine({
    catalog,
    env,
    policies,
    allowInsecureHttp,
    ...pick({
      timeoutMs: options.timeoutMs ?? settings?.timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? settings?.maxResponseBytes,
      outputValidation: options.outputValidation ?? settings?.outputValidation,
      approvalTimeoutMs,
      audit,
      rateLimits: settings?.rateLimits,
      tokens: options.tokens,
    }),
  });
  return { catalog, engine, env, ...(settings ? { settings } : {}) };
}

function refuseOnErrors(catalog: Catalog): void {
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return;
  const shown = errors.slice(0, ERRORS_SHOWN).map((d) => `  ${describe(d)}`);
  if (errors.length > ERRORS_SHOWN) shown.push(`  … and ${errors.length - ERRORS_SHOWN} more`);
  throw new UserError({ code: "E_CATALOG", message: `not starting: ${errors.length} error${errors.length === 1 ? "" : "s"} in the source:\n${shown.join("\n")}` });
}

/** The entries whose values are defined: optional options stay absent rather than `undefined`. */
function pick<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
