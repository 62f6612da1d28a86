// The second of the limits: a place under the tool's and the source's rate limits and the profile's budgets for
// the caller, counted from when the request leaves (../rate-limit.ts says why): the gate it hands on admits the
// request, and its retry, as each really goes.

import type { Tool } from "../../catalog/types.js";
import { formatDuration } from "../durations.js";
import { profileBudgetKeys } from "../profiles/profile-budgets.js";
import { type RateLimitKey, sourceKey, toolKey } from "../limits/rate-limit.js";
import { RateLimitGate } from "../limits/request-gate.js";
import { errorResult } from "../http/response.js";
import type { CallContext } from "../types.js";
import { type Admitted, answered, type Built, type Ran } from "./call.js";
import type { EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

export function rateLimitStage(parts: EngineParts): Stage<Built, Admitted, Ran> {
  return async (call, next) => {
    const { prepared, name, context, record } = call;
    const budgets = budgetKeys({ parts, tool: prepared.tool, context });
    const keys = [...rateLimitKeys({ parts, tool: prepared.tool }), ...budgets.keys];
    const describe = (key: string): string =>
      budgets.shown.get(key) ?? `the rate limit for ${key.replace(/^source:$/, "this API")}`;
    const admission = await parts.limiter.reserve({ keys });
    if (!admission.ok && "unavailable" in admission) {
      // A shared limit nobody can check is not a limit: send nothing (--state-fail open chooses otherwise).
      record("rate_limited", prepared);
      return answered(errorResult(`${name}: ${admission.unavailable}; nothing was sent. Try again later.`));
    }
    if (!admission.ok) {
      record("rate_limited", prepared);
      return answered(
        errorResult(
          `${name} was not sent: ${describe(admission.key)} is reached. Try again in ${formatDuration(admission.retryAfterMs)}.`,
        ),
      );
    }
    const gate = new RateLimitGate({ limiter: parts.limiter, keys, first: admission.permit, describe });
    try {
      return await next(Object.assign(call, { gate }));
    } finally {
      gate.close();
    }
  };
}

/** The tool's and its source's limits: the settings' first, else the document's own. */
function rateLimitKeys({ parts, tool }: { parts: EngineParts; tool: Tool }): RateLimitKey[] {
  const { rateLimits, catalog } = parts.options;
  const keys: RateLimitKey[] = [];
  const toolLimit = rateLimits?.tools?.[tool.name] ?? tool.operation.rateLimit;
  if (toolLimit) keys.push({ key: toolKey(tool.name), limit: toolLimit });
  const source = catalog.sources.find((s) => s.id === tool.source);
  const sourceLimit = rateLimits?.sources?.[tool.source || "default"] ?? source?.rateLimit;
  if (sourceLimit) keys.push({ key: sourceKey(tool.source), limit: sourceLimit });
  return keys;
}

/** The profile's budgets for this caller (no caller: stdio or no endpoint auth, counted as one). */
function budgetKeys({ parts, tool, context }: { parts: EngineParts; tool: Tool; context: CallContext }): {
  keys: RateLimitKey[];
  shown: Map<string, string>;
} {
  const budgets = parts.options.profile?.budgets;
  if (!budgets) return { keys: [], shown: new Map() };
  return profileBudgetKeys({ tool, budgets, principal: context.caller?.principal ?? "" });
}
