// A profile's budgets (settings `profiles.<name>.rateLimits`): rate limits counted per caller, inside the server's
// tool and source limits. Each key holds the caller's principal, so no two callers ever share one (and is marked as
// naming a caller: Redis keeps it as a keyed digest, shared/redis-limiter.ts).

import type { RateLimit, RateLimits, Tool } from "../../catalog/types.js";
import { type RateLimitKey, sourceKey, toolKey } from "../limits/rate-limit.js";

/** A profile's own rate limits: `calls` for all of a caller's calls, `tools` and `sources` as the server's. */
export type ProfileBudgets = RateLimits & { calls?: RateLimit };

/** The keys a call of `tool` by `principal` counts against, and how a refusal names each. */
export function profileBudgetKeys({
  tool,
  budgets,
  principal,
}: {
  tool: Tool;
  budgets: ProfileBudgets;
  principal: string;
}): {
  keys: RateLimitKey[];
  shown: Map<string, string>;
} {
  const keys: RateLimitKey[] = [];
  const shown = new Map<string, string>();
  const add = (key: string, limit: RateLimit | undefined, words: string): void => {
    if (!limit) return;
    const scoped = `caller:${principal}:${key}`;
    keys.push({ key: scoped, limit, namesCaller: true });
    shown.set(scoped, `this caller's budget ${words} (${limit.requests} per ${limit.windowSeconds} s)`);
  };
  add("calls", budgets.calls, "for all calls");
  add(
    toolKey(tool.name),
    Object.hasOwn(budgets.tools ?? {}, tool.name) ? budgets.tools?.[tool.name] : undefined,
    `for ${tool.name}`,
  );
  const source = tool.source || "default";
  add(
    sourceKey(tool.source),
    Object.hasOwn(budgets.sources ?? {}, source) ? budgets.sources?.[source] : undefined,
    "for this API",
  );
  return { keys, shown };
}
