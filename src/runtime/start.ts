// Building a ready engine from a catalog: refuse what is unsafe (plain http upstreams), say which tools wait for
// credentials (or refuse, when told to), then apply policies, limits and the audit log. Shared by `serve`/`call` and by
// generated servers, which start from a catalog file instead of a spec.

import { UserError } from "../catalog/errors.js";
import { plural } from "../catalog/plural.js";
import { openAuditLog } from "./audit/audit.js";
import type { AuditLog } from "./audit/audit-record.js";
import { describeMissingCredentials, type Environment, missingCredentials } from "./credentials/credentials.js";
import { Engine } from "./engine.js";
import type { EngineOptions } from "./engine-options.js";
import { checkUpstreamUrls } from "./http/https.js";
import { defined } from "./defined.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS, type RuntimeSettings } from "./options.js";
import { RequestStates } from "./approvals/approval-states.js";
import { checkSecretReferences } from "./secrets/secret-check.js";
import { SecretSources } from "./secrets/secret-sources.js";
import { DEFAULT_POLICIES, parsePolicies } from "./approvals/policy.js";
import type { UsedNonces } from "./approvals/used-nonces.js";

/** The engine's settings (the options table's, merged with a settings file) and what the program wires in. */
export interface StartOptions
  extends RuntimeSettings,
    Pick<
      EngineOptions,
      "catalog" | "tokens" | "hooks" | "userCredentials" | "inFlightFor" | "limiter" | "approvals" | "secretAssignments"
    > {
  env: Environment;
  /**
   * Check only what these tools need (`call`, whose result says what is missing, so no start-up notice); every
   * tool by default.
   */
  onlyTools?: string[];
  log?: (line: string) => void;
  /** Used approval states, shared by the replicas (--state redis); default: this process's memory. */
  usedNonces?: UsedNonces;
  /** Where audit lines also go, with or without --audit-log (the console's Activity page). */
  auditAlso?: AuditLog;
}

export function startEngine(options: StartOptions): Engine {
  const { catalog, env } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const allowInsecureHttp = options.allowInsecureHttp ?? false;
  const secretSources = checkCatalog({ options, catalog, log });

  const base = { ...DEFAULT_POLICIES, denyMode: options.deniedTools ?? DEFAULT_POLICIES.denyMode };
  const policies = parsePolicies(
    options.policies ?? [],
    catalog.tools.map((t) => t.name),
    base,
  );
  const audit = bothLogs(options.auditLog ? openAuditLog(options.auditLog) : undefined, options.auditAlso);
  // Built now, so a secret too short stops the start rather than the first approval.
  const requestStates = new RequestStates({
    lifetimeMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    log,
    ...defined({ secrets: options.stateSecrets, usedNonces: options.usedNonces }),
    source: "--state-secret (MCP_STATE_SECRET)",
  });
  return new Engine({
    catalog,
    env,
    policies,
    allowInsecureHttp,
    requestStates,
    secretSources,
    ...defined({
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      outputValidation: options.outputValidation,
      responseText: options.responseText,
      responseTextSources: options.responseTextSources,
      markResponseText: options.markResponseText,
      approvalTimeoutMs: options.approvalTimeoutMs,
      approvals: options.approvals,
      audit,
      rateLimits: options.rateLimits,
      maxInFlight: options.maxInFlight,
      maxInFlightPerPrincipal: options.maxInFlightPerPrincipal,
      maxQueued: options.maxQueued,
      queueTimeoutMs: options.queueTimeoutMs,
      inFlight: options.inFlight,
      inFlightFor: options.inFlightFor,
      tokens: options.tokens,
      limiter: options.limiter,
      hooks: options.hooks,
      userCredentials: options.userCredentials,
      secretAssignments: options.secretAssignments,
    }),
  });
}

/**
 * What a start refuses or says about a catalog: plain http upstreams, `${file:…}` references that cannot be read,
 * missing credentials (refused with --require-credentials). Run again on every reload (reload.ts). Returns the
 * secret sources it checked the references with.
 */
export function checkCatalog({
  options,
  catalog,
  log,
}: {
  options: StartOptions;
  catalog: StartOptions["catalog"];
  log: (line: string) => void;
}): SecretSources {
  const { env } = options;
  const allowInsecureHttp = options.allowInsecureHttp ?? false;
  const upstreams = checkUpstreamUrls(catalog, { allowInsecureHttp });
  if (upstreams.errors.length > 0)
    throw new UserError({ code: "E_HTTPS_REQUIRED", message: `not starting: ${upstreams.errors.join("; ")}` });
  // Said on every start: an opt-out nobody notices is not an opt-out anyone chose.
  for (const warning of upstreams.warnings) log(`WARNING --allow-insecure-http: ${warning}`);

  const needed = options.onlyTools
    ? {
        ...catalog,
        tools: catalog.tools.filter((t) =>
          options.onlyTools?.some((name) => name === t.name || name === t.origin.operationId),
        ),
      }
    : catalog;
  // `${file:…}` and `${cmd:…}` references: files checked now, commands defined (they run at their first use).
  const secretSources = new SecretSources({
    ...defined({ commands: options.secrets, allowReadableFiles: options.allowReadableSecretFiles }),
    log,
  });
  checkSecretReferences({ catalog: needed, env, secretSources });
  const missing = missingCredentials(needed, env, defined({ userCredentials: options.userCredentials }));
  const described = missing.length > 0 ? describeMissingCredentials(missing) : "";
  if (described && options.requireCredentials)
    throw new UserError({ code: "E_CREDENTIALS", message: `not starting: credentials are missing:\n${described}` });
  if (described && !options.onlyTools) {
    const waiting = missing.reduce((sum, group) => sum + group.tools.length, 0);
    log(
      `credentials are missing for ${waiting} of ${needed.tools.length} tool${plural(needed.tools.length)}; until they are set, calls to these answer with an error naming them (--require-credentials refuses to start instead):`,
    );
    for (const line of described.split("\n")) log(`  ${line}`);
  }
  return secretSources;
}

/** One audit log writing to both, or the one given; none without either (the engine then builds no lines). */
function bothLogs(first: AuditLog | undefined, second: AuditLog | undefined): AuditLog | undefined {
  if (!first || !second) return first ?? second;
  return {
    write: (record) => {
      first.write(record);
      second.write(record);
    },
  };
}
