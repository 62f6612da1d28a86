// What a person is asked before a call that needs approval, and how their answer reads: one question for both
// protocol eras, asked through an elicitation request (2025 clients, mcp.ts) or an input_required result
// (2026-07-28 clients, input-required.ts), so the same message, form and default timeout reach either.

import type { ElicitRequestFormParams } from "@modelcontextprotocol/server";
import { approvalMessage } from "../runtime/approvals/approval-message.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../runtime/options.js";
import type { ApprovalAnswer, ApprovalRequest } from "../runtime/types.js";

/**
 * The form an approval asks the human to submit. A plain confirmation needs no field (accept means yes), but
 * form-mode clients render a form with no fields in differing ways, some as a dialog whose submit does nothing;
 * one boolean, ticked by default, renders everywhere and keeps "accept" a one-step yes where clients apply
 * defaults. Accepting with it unticked (or missing) is a no.
 */
export const APPROVAL_SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    approve: {
      type: "boolean",
      title: "Approve this call",
      description: "Send the request. Untick, decline or cancel to stop it.",
      default: true,
    },
  },
  required: ["approve"],
};

/** How long the person has to answer: the request's own timeout, or the default (5 minutes). */
export function approvalTimeoutMs(request: ApprovalRequest): number {
  return request.timeoutMs > 0 ? request.timeoutMs : DEFAULT_APPROVAL_TIMEOUT_MS;
}

/** The form elicitation that asks about `request`, in either era. */
export function approvalQuestion(request: ApprovalRequest): ElicitRequestFormParams & { mode: "form" } {
  return {
    mode: "form",
    message: approvalMessage(request, approvalTimeoutMs(request)),
    requestedSchema: APPROVAL_SCHEMA,
  };
}

/** The person's answer to the form: only an accepted form with the box ticked is a yes. */
export function readAnswer({
  action,
  content,
}: {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown> | undefined;
}): ApprovalAnswer {
  if (action !== "accept") return action;
  return content?.approve === true ? "accept" : "decline";
}
