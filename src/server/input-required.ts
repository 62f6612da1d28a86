// Approval for a 2026-07-28 client (SEP-2322's input_required): that era has no request from server to client, so
// a call that needs a person's yes is not kept waiting. It ends with an input_required result holding the question
// (the same form and message older clients get as an elicitation request) and a signed, expiring request state
// (runtime/approvals/approval-states.ts). The client asks the person and calls again with the answer and the state,
// to this process or any other holding the same --state-secret, and the engine resumes the call there: checked,
// then sent only if approved.

import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ApprovalAnswer, CallContext, ServedProvider, ToolResult } from "../runtime/types.js";
import { approvalQuestion, readAnswer } from "./approval-question.js";
import { SIGN_IN_STATE, signInRequired, signInRound } from "./sign-in-question.js";

/**
 * One round of a 2026-07-28 tools/call. Without a request state: the call, or, when it needs approval, the
 * question and the state. With one: the call it stands for, resumed with the answer the retry carries.
 */
export async function callAskingLater({
  provider,
  tool,
  args,
  ctx,
  context,
}: {
  provider: ServedProvider;
  tool: string;
  args: unknown;
  ctx: ServerContext;
  context: CallContext;
}): Promise<ToolResult | InputRequiredResult> {
  const principal = context.caller?.principal;
  const caller = principal !== undefined ? { principal } : {};
  // A per-user sign-in is asked for as a URL request, before any approval (sign-in-question.ts).
  const signIn = signInRound(ctx);
  const result = await callRound({ provider, tool, args, ctx, context: { ...context, signIn: signIn.hook }, caller });
  const prompt = signIn.asked();
  return prompt && "isError" in result && result.isError ? signInRequired(prompt) : result;
}

async function callRound({
  provider,
  tool,
  args,
  ctx,
  context,
  caller,
}: {
  provider: ServedProvider;
  tool: string;
  args: unknown;
  ctx: ServerContext;
  context: CallContext;
  caller: { principal?: string };
}): Promise<ToolResult | InputRequiredResult> {
  // Without a verify hook (the engine checks the state itself, saying why it refuses) the SDK gives it as sent. A
  // retry after a sign-in starts the call afresh.
  const given = ctx.mcpReq.requestState();
  const state = given === SIGN_IN_STATE ? undefined : given;
  // A client that cannot show a form is treated as one that cannot be asked: a call needing approval is refused,
  // saying so, and nothing is sent (as by a provider that cannot hand out a state: ProviderBase's beginCall).
  const unsupported = async (): Promise<ApprovalAnswer> => "unsupported";
  if (!canShowForm(ctx)) return provider.callTool(tool, args, { ...context, approve: unsupported });
  if (state !== undefined) {
    // The answer is looked up under the question's id from the signed state, not one the client names.
    const answer = (questionId: string): ApprovalAnswer => answerTo(ctx.mcpReq.inputResponses, questionId);
    return provider.resumeCall({ name: tool, args, ...caller, state, answer, context });
  }
  const begun = await provider.beginCall({ name: tool, args, ...caller, context });
  if ("result" in begun) return begun.result;
  const { questionId, request, state: issued } = begun.approval;
  return inputRequired({
    inputRequests: { [questionId]: inputRequired.elicit(approvalQuestion(request)) },
    requestState: issued,
  });
}

/** The person's answer in the retry; none (or not a form's answer) is a cancel, and nothing is sent. */
function answerTo(responses: Record<string, unknown> | undefined, questionId: string): ApprovalAnswer {
  const view = inputResponse(responses, questionId);
  return view.kind === "elicit" ? readAnswer(view) : "cancel";
}

/**
 * Whether the request's client declares form elicitation (2026-07-28 sends its capabilities with each request). An
 * empty `elicitation: {}` means form, as in 2025; the SDK refuses an input_required the client cannot answer.
 */
function canShowForm(ctx: ServerContext): boolean {
  // The SDK's published type of the envelope names none of its keys.
  const envelope = ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  const elicitation = envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}
