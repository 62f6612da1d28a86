// The approval stage: a call whose policy says approve is asked about where its route says (the client, the
// console's queue, or both) and goes on only on a yes; beginCall instead ends here with the question and a signed
// state bound to the tool, the arguments and the caller (resumed by state.ts). Asked after the credentials, so the
// person sees the URL as it will be sent, secrets masked.

import { loggedUrl } from "../audit/audit.js";
import { askByRoute, routeOf } from "../approvals/approval-routes.js";
import { argumentDigest } from "../approvals/canonical-json.js";
import { errorResult } from "../http/response.js";
import { maskText, maskValue } from "../secrets/secrets.js";
import type { ApprovalAnswer, ApprovalRequest } from "../types.js";
import { answered, type Built, type Prepared, type Ran, type Recorder } from "./call.js";
import { approvalTimeoutMs, type EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

export const NOT_APPROVED: Record<Exclude<ApprovalAnswer, "accept">, (tool: string, busy?: string) => string> = {
  decline: (tool) => `${tool} was not sent: the person reviewing it declined.`,
  cancel: (tool) => `${tool} was not sent: the person reviewing it cancelled the approval.`,
  timeout: (tool) => `${tool} was not sent: nobody approved it in time.`,
  unsupported: (tool) =>
    `${tool} needs a person's approval before each call, and this client cannot ask for it (no MCP elicitation), so nothing was sent. An operator can allow it with --policy ${tool}=allow.`,
  busy: (tool, busy) =>
    `${tool} was not sent: too many calls are waiting for a person's approval in the console already (${busy ?? "the queue is full"}). Try again once some are decided.`,
};

export function approvalStage(parts: EngineParts): Stage<Built, Built, Ran> {
  return async (call, next) => {
    if (call.kind === "resume" || call.policy.decision !== "approve") return next(call);
    const { routes } = parts.options.approvals ?? {};
    // Routed to the console, a begun call is held open until an admin decides (README "Approvals"): the answer is
    // not the client's to bring back, and holding it needs no state to carry.
    if (call.kind === "call" || (routeOf({ routes, tool: call.tool }) !== "client" && parts.options.approvals))
      return askNow({ parts, call, next });
    const { state, claims } = parts.requestStates().issue({
      tool: call.tool.name,
      digest: argumentDigest(call.args),
      principal: call.principal ?? null,
    });
    const request = approvalRequest({ parts, prepared: call.prepared, args: call.args });
    return { kind: "approval", approval: { questionId: claims.questionId, request, state } };
  };
}

/** Asked now, where the route says; sent only on a yes, whoever approved in the console named on its audit line. */
async function askNow({
  parts,
  call,
  next,
}: {
  parts: EngineParts;
  call: Built;
  next: (call: Built) => Promise<Ran>;
}): Promise<Ran> {
  const { context, prepared, record, name } = call;
  const { approvals } = parts.options;
  const { answer, by, busy } = await askByRoute({
    route: context.approvalRoute ?? routeOf({ routes: approvals?.routes, tool: prepared.tool }),
    queue: approvals?.queue,
    request: approvalRequest({ parts, prepared, args: call.args }),
    context,
  });
  if (answer !== "accept") {
    record("not_approved", { ...prepared, ...(by ? { declinedBy: by } : {}) });
    return answered(errorResult(NOT_APPROVED[answer](name, busy)));
  }
  const approved: Recorder = by ? (outcome, extra = {}) => record(outcome, { ...extra, approvedBy: by }) : record;
  return next(Object.assign(call, { record: approved }));
}

/** What the person is shown: the same whether the client waits for the answer or brings it back later. */
function approvalRequest({
  parts,
  prepared: { tool, request, secrets },
  args,
}: {
  parts: EngineParts;
  prepared: Prepared;
  args: unknown;
}): ApprovalRequest {
  return {
    tool: tool.name,
    title: tool.title,
    method: request.method,
    url: loggedUrl(maskText(request.origin + request.path, secrets)),
    arguments: maskValue((args ?? {}) as Record<string, unknown>, secrets),
    effect: tool.effect,
    timeoutMs: approvalTimeoutMs(parts.options),
  };
}
