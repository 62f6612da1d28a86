// The audit stage: one audit line per call, timed from its entry and written once, when the call ends, with what
// the stage that ended it knew (the request as sent, its status, who approved). Masked with the secrets the call
// carried and the arguments' own sensitive values before the line is cut to its bounds (audit-line.ts).

import { loggedArguments, safeRecord, sensitiveValues } from "../audit/audit.js";
import type { EngineOptions } from "../engine-options.js";
import { maskValue } from "../secrets/secrets.js";
import { parseTraceparent } from "../http/trace-context.js";
import type { CallContext } from "../types.js";
import type { Entry, Ran, Recorded, Recorder } from "./call.js";
import type { Stage } from "./pipeline.js";

export function auditStage(options: EngineOptions): Stage<Entry, Recorded, Ran> {
  return (call, next) => next(Object.assign(call, { record: recorder({ options, ...call }) }));
}

/** One audit line per call, timed from now. */
export function recorder({
  options,
  name,
  args,
  context,
}: {
  options: Pick<EngineOptions, "audit" | "profile">;
  name: string;
  args: unknown;
  context: CallContext;
}): Recorder {
  const started = performance.now();
  // Named on the audit line whenever the client sent a valid one, also for calls that stop before a request.
  const traceId = parseTraceparent(context.trace?.traceparent)?.traceId;
  return (outcome, extra = {}) => {
    if (!options.audit) return;
    const secrets = [...(extra.secrets ?? []), ...sensitiveValues(args)];
    options.audit.write(
      safeRecord(
        {
          time: new Date().toISOString(),
          ...(context.sessionId ? { session: context.sessionId } : {}),
          // Who called (the principal's key, never a token) and under which profile.
          ...(context.caller ? { principal: context.caller.principal } : {}),
          ...(options.profile ? { profile: options.profile.name } : {}),
          ...(traceId ? { traceId } : {}),
          ...(extra.request && extra.spanId ? { spanId: extra.spanId } : {}),
          tool: name,
          ...(context.script ? { via: context.script.via, script: context.script.digest } : {}),
          ...(extra.request ? { method: extra.request.method, url: extra.request.origin + extra.request.path } : {}),
          // Masked before loggedArguments cuts long values, as the URL is before safeRecord cuts it.
          arguments: loggedArguments(maskValue(args, secrets)),
          ...(extra.status !== undefined ? { status: extra.status } : {}),
          ...(extra.references ? { secrets: extra.references } : {}),
          ...(extra.hidden ? { hiddenCharactersRemoved: extra.hidden } : {}),
          ...(extra.approvedBy ? { approvedBy: extra.approvedBy } : {}),
          ...(extra.declinedBy ? { declinedBy: extra.declinedBy } : {}),
          durationMs: Math.round(performance.now() - started),
          outcome,
        },
        secrets,
      ),
    );
  };
}
