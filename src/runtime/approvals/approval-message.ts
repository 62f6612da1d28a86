// The text a person reads before approving a call, wherever they are asked: in the client (an elicitation or an
// input_required question, server/approval-question.ts) or on the console's Approvals page.

import { formatDuration } from "../durations.js";
import type { ApprovalRequest } from "../types.js";

/** Arguments longer than this (as indented JSON) are cut in the approval message. */
const MAX_ARGUMENTS_CHARS = 4000;

const EFFECTS: Record<ApprovalRequest["effect"], string> = {
  read: "reads data",
  write: "changes data",
  destructive: "deletes data, which may not be undoable",
};

/** What the human reads: tool, title, effect, method and URL, the arguments (secrets already masked). */
export function approvalMessage(request: ApprovalRequest, timeoutMs = request.timeoutMs): string {
  const { shown, chars } = request.argumentsCut ?? argumentsText(request.arguments);
  let args = shown;
  let heading = "Arguments:";
  if (chars > MAX_ARGUMENTS_CHARS) {
    // Said before the arguments, where the person starts reading them, not only at the end of a long block.
    const count = (n: number) => n.toLocaleString("en-US");
    const left = count(chars - MAX_ARGUMENTS_CHARS);
    heading = `Arguments, shown in part: the first ${count(MAX_ARGUMENTS_CHARS)} of ${count(chars)} characters (${left} not shown):`;
    args = `${shown}\n… (${left} more characters not shown)`;
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

/** The arguments as indented JSON, at most MAX_ARGUMENTS_CHARS of it, and how long it is whole. */
function argumentsText(args: Record<string, unknown>): { shown: string; chars: number } {
  const text = JSON.stringify(args, null, 2) ?? "{}";
  return { shown: text.slice(0, MAX_ARGUMENTS_CHARS), chars: text.length };
}

/**
 * The request as a queue keeps it while a person decides: arguments too long to show whole are kept as the part
 * shown (a queue entry is no larger than its question), the rest only counted.
 */
export function shownRequest(request: ApprovalRequest): ApprovalRequest {
  if (request.argumentsCut) return request;
  const text = argumentsText(request.arguments);
  return text.chars <= MAX_ARGUMENTS_CHARS ? request : { ...request, arguments: {}, argumentsCut: text };
}
