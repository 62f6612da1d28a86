// What Redis may hold only sealed or under keyed names, and so only with --state-secret: the console's approval
// queue (an entry or decision anyone writing to Redis could forge would approve a call) and profiles' per-caller
// budgets (keys naming callers). Without a secret these cannot be shared, and they cannot quietly stay per replica
// either: behind a load balancer each admin would see another part of the queue, and a caller's budget would count
// once per replica. So `serve` refuses to start, saying what needs the secret; the token caches, which each replica
// can keep on its own at no risk, do so with a warning (shared-state.ts).

import { UserError } from "../../catalog/errors.js";
import type { Settings } from "../../catalog/settings.js";

export function refuseSecretlessState({
  secretless,
  console,
  settings,
}: {
  /** True for `--state redis://…` without --state-secret. */
  secretless: boolean | undefined;
  /** The console is on (its Approvals page and Try it use the approval queue). */
  console: boolean;
  settings: Settings | undefined;
}): void {
  if (!secretless) return;
  const budgets = Object.entries(settings?.profiles ?? {})
    .filter(([, profile]) => profile.rateLimits !== undefined)
    .map(([name]) => name);
  const needs = [
    ...(console ? ["the console's approval queue (its entries and decisions are sealed with the secret)"] : []),
    ...(budgets.length > 0
      ? [
          `the per-caller budgets of profile${budgets.length === 1 ? "" : "s"} ${budgets.slice(0, 5).join(", ")}${budgets.length > 5 ? ", …" : ""} in ${settings?.file} (their keys name callers by a digest keyed with the secret)`,
        ]
      : []),
  ];
  if (needs.length === 0) return;
  throw new UserError({
    code: "E_STATE",
    message: `not starting: --state is Redis, and ${needs.join(" and ")} can be shared there only with --state-secret (MCP_STATE_SECRET), which is not set. Give every replica the same secret (make one with: openssl rand -base64 32)`,
  });
}
