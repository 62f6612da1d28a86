// A running engine given another catalog (a registry's or a watched file's new version): the same checks as a
// start, then the engine's state carried over (Engine.withCatalog). Policies naming a tool the new catalog no
// longer has are dropped with a warning rather than refusing the reload: the tool is gone, so nothing is allowed
// or denied by them, and the entry applies again if the tool comes back.

import { type OpenApiMcpError, UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import type { Engine } from "./engine.js";
import { DEFAULT_POLICIES, parsePolicies } from "./approvals/policy.js";
import { checkCatalog, type StartOptions } from "./start.js";

const CLASSES = new Set(["read", "write", "destructive"]);
const TOOL_PREFIX = "tool:";

/** The engine serving `catalog`, or a UserError saying why the catalog cannot be served (nothing changed then). */
export function reloadEngine({
  engine,
  catalog,
  options,
  log,
}: {
  engine: Engine;
  catalog: Catalog;
  /** What the engine was started with (its policies, credentials, --allow-insecure-http…). */
  options: StartOptions;
  log: (line: string) => void;
}): Engine {
  try {
    checkCatalog({ options, catalog, log });
  } catch (error) {
    if (error instanceof UserError) throw notPublished(error);
    throw error;
  }
  const names = new Set(catalog.tools.map((tool) => tool.name));
  const kept = knownPolicyEntries({
    entries: (options.policies ?? []).flatMap((text) => text.split(",")),
    names,
    warn: (entry) =>
      log(`openapi-mcp: warning: policy '${entry}' names a tool the catalog no longer has; ignored while it is gone`),
  });
  const base = { ...DEFAULT_POLICIES, denyMode: options.deniedTools ?? DEFAULT_POLICIES.denyMode };
  const policies = parsePolicies(kept, [...names], base);
  return engine.withCatalog({
    catalog,
    policies,
    ...(options.secretAssignments ? { secretAssignments: options.secretAssignments } : {}),
  });
}

function notPublished(error: OpenApiMcpError): UserError {
  return new UserError({ code: error.code, message: error.message.replace(/^not starting: /, "not published: ") });
}

/**
 * The policy entries whose tool the catalog has (class entries always): those naming a tool gone are told to
 * `warn` and left out, where a start would refuse them (a tool removed from a registry is no mistake in the policy).
 */
export function knownPolicyEntries({
  entries,
  names,
  warn,
}: {
  entries: string[];
  names: ReadonlySet<string>;
  warn: (entry: string) => void;
}): string[] {
  return entries.filter((entry) => {
    const target = entry.slice(0, Math.max(0, entry.indexOf("="))).trim();
    const tool = target.startsWith(TOOL_PREFIX) ? target.slice(TOOL_PREFIX.length) : target;
    if (target === "" || (!target.startsWith(TOOL_PREFIX) && CLASSES.has(target)) || names.has(tool)) return true;
    warn(entry.trim());
    return false;
  });
}
