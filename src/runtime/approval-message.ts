// The text a person reads before approving a call, wherever they are asked: in the client (an elicitation or an
// input_required question, server/approval-question.ts) or on the console's Approvals page.

import { formatDuration } from "./durations.js";
import type { ApprovalRequest } from "./types.js";

/** Arguments longer than this (as indented JSON) are cut in the approval message. */
const MAX_ARGUMENTS_CHARS = 4000;

const EFFECTS: Record<ApprovalRequest["effect"], string> = {
  read: "reads data",
  write: "changes data",
  destructive: "deletes data, which may not be undoable",
};

/** What the human reads: tool, title, effect, method and URL, the arguments (secrets already masked). */
export function approvalMessage(request: ApprovalRequest, timeoutMs = request.timeoutMs): string {
  let args = JSON.stringify(request.arguments, null, 2) ?? "{}";
  let heading = "Arguments:";
  if (args.length > MAX_ARGUMENTS_CHARS) {
    // Said before the arguments, where the person starts reading them, not only at the end of a long block.
    const count = (n: number) => n.toLocaleString("en-US");
    const left = count(args.length - MAX_ARGUMENTS_CHARS);
    heading = `Arguments, shown in part: the first ${count(MAX_ARGUMENTS_CHARS)} of ${count(args.length)} characters (${left} not shown):`;
    args = `${args.slice(0, MAX_ARGUMENTS_CHARS)}\n… (${left} more characters not shown)`;
  }
  const title = request.title && request.title !== request.tool ? ` (${request.title})` : "";
  return [
    `Approve this call? It ${EFFECTS[request.effect]}.`,
    "",
    `Tool: ${request.tool}${title}`,
    `Request: ${request.method} ${request.url}`,
    heading,
    args,
    "",
    `Nothing is sent unless you approve. No answer within ${formatDuration(timeoutMs, { words: true })} counts as no.`,
  ].join("\n");
}
