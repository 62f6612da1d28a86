// Where a call needing approval is asked (settings `approvals`): `client` (the default) asks through the MCP client
// (elicitation, or input_required for 2026-07-28 clients), `console` queues it on the console's Approvals page, for
// any client, and `both` asks both, the first answer winning and the other question withdrawn. One route for the
// server (`approvals: console`) or by class and tool (`approvals: { destructive: console, deletePet: both }`, a tool
// beating its class, `client` for the rest).

import { UserError } from "../../catalog/errors.js";
import type { SideEffect } from "../../catalog/types.js";
import type { ApprovalOutcome, ApprovalQueue } from "./approval-queue.js";
import type { ApprovalRequest, CallContext } from "../types.js";

export type ApprovalRoute = "client" | "console" | "both";
export type ApprovalRoutes = ApprovalRoute | Readonly<Record<string, ApprovalRoute>>;

export const APPROVAL_ROUTES: readonly ApprovalRoute[] = ["client", "console", "both"];

export function routeOf({
  routes,
  tool,
}: {
  routes: ApprovalRoutes | undefined;
  tool: { name: string; effect: SideEffect };
}): ApprovalRoute {
  if (routes === undefined) return "client";
  if (typeof routes === "string") return routes;
  if (Object.hasOwn(routes, tool.name)) return routes[tool.name]!;
  return Object.hasOwn(routes, tool.effect) ? routes[tool.effect]! : "client";
}

/** The settings' value checked: a route, or routes by class or tool name, each one of APPROVAL_ROUTES. */
export function checkRoutes({ routes, toolNames }: { routes: unknown; toolNames: readonly string[] }): ApprovalRoutes {
  const expected = `one of ${APPROVAL_ROUTES.join(", ")}`;
  const isRoute = (value: unknown): value is ApprovalRoute => APPROVAL_ROUTES.includes(value as ApprovalRoute);
  if (typeof routes === "string") {
    if (isRoute(routes)) return routes;
    throw new UserError({ code: "E_SETTINGS", message: `approvals: '${routes}' is not ${expected}` });
  }
  if (typeof routes !== "object" || routes === null || Array.isArray(routes))
    throw new UserError({ code: "E_SETTINGS", message: `approvals: expected ${expected}, or routes by class or tool` });
  const known = new Set(["read", "write", "destructive", ...toolNames]);
  const checked: Record<string, ApprovalRoute> = Object.create(null) as Record<string, ApprovalRoute>;
  for (const [target, route] of Object.entries(routes)) {
    if (!known.has(target))
      throw new UserError({
        code: "E_SETTINGS",
        message: `approvals.${target}: there is no class or tool by that name`,
      });
    if (!isRoute(route))
      throw new UserError({
        code: "E_SETTINGS",
        message: `approvals.${target}: '${String(route)}' is not ${expected}`,
      });
    checked[target] = route;
  }
  return checked;
}

/**
 * Asks for approval where `route` says. `console` and `both` need the queue (the console's); without one every
 * route is the client's. With `both`, a client that cannot be asked (`unsupported`) leaves the console's answer to
 * wait for, and a full console queue (`busy`) the client's; whichever answers first decides, and the other question is withdrawn (the elicitation cancelled, the
 * queued call taken off the page).
 */
export async function askByRoute({
  route,
  queue,
  request,
  context,
}: {
  route: ApprovalRoute;
  queue: ApprovalQueue | undefined;
  request: ApprovalRequest;
  context: CallContext;
}): Promise<ApprovalOutcome> {
  const fromClient = async (signal?: AbortSignal): Promise<ApprovalOutcome> => ({
    answer: context.approve ? await context.approve(request, signal ? { signal } : {}) : "unsupported",
  });
  if (route === "client" || !queue) return fromClient();
  const principal = context.caller?.principal;
  if (route === "console" || !context.approve) return queue.ask({ request, principal, signal: context.signal });
  const withdraw = new AbortController();
  const signal = context.signal ? AbortSignal.any([context.signal, withdraw.signal]) : withdraw.signal;
  const queued = queue.ask({ request, principal, signal });
  // Each side waits for the other where it cannot ask: a client without elicitation, a console queue that is full.
  const client = fromClient(signal).then((outcome) => (outcome.answer === "unsupported" ? queued : outcome));
  const console = queued.then((outcome) => (outcome.answer === "busy" ? client : outcome));
  try {
    return await Promise.race([console, client]);
  } finally {
    withdraw.abort();
  }
}
