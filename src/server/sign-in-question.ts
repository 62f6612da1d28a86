// Asking a person to sign in at an upstream's provider (the per-user sign-in mode, runtime/sign-in/sign-in.ts), in either
// protocol era: a URL-mode elicitation on the call's stream for 2025-11-25 clients, waited on until the sign-in
// completes (then notifications/elicitation/complete), or an input_required result holding the same URL request for
// 2026-07-28 clients, whose retry waits for it the same way. A client that cannot open URLs gets the error result,
// which holds the URL and says what to do; nothing is sent upstream until the person has signed in.

import { randomUUID } from "node:crypto";
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { SIGN_IN_LIFETIME_MS } from "../runtime/sign-in/sign-in-link.js";
import type { SignInAnswer, SignInPrompt } from "../runtime/credentials/sign-in-prompt.js";

/** The input request's key, and the request state that marks a retry after it (it grants nothing: see below). */
export const SIGN_IN_KEY = "sign_in";
export const SIGN_IN_STATE = "openapi-mcp:sign-in";

/** 2025-11-25: the URL elicitation, then the wait for the sign-in to finish. Never rejects. */
export async function askSignIn({
  server,
  prompt,
  signal,
  relatedRequestId,
}: {
  server: Server;
  prompt: SignInPrompt;
  signal: AbortSignal;
  relatedRequestId: string | number;
}): Promise<SignInAnswer> {
  if (!server.getClientCapabilities()?.elicitation?.url) return "unsupported";
  const elicitationId = randomUUID();
  try {
    const answer = await server.elicitInput(
      { mode: "url", elicitationId, url: prompt.url, message: prompt.message },
      { timeout: SIGN_IN_LIFETIME_MS, signal, relatedRequestId },
    );
    // Accept means the person agreed to open the link, not that they signed in: that is waited for.
    if (answer.action !== "accept") return "declined";
  } catch {
    return "declined";
  }
  if (!(await prompt.completed({ signal }))) return "timeout";
  await server
    .createElicitationCompletionNotifier(elicitationId, { relatedRequestId })()
    .catch(() => {});
  return "signedIn";
}

/**
 * 2026-07-28: the sign-in hook for one round of a call. A first round that needs a sign-in records the prompt (the
 * binding then answers input_required, see `signInRequired`); a retry after the person accepted to open the link
 * waits for the sign-in. The retry's request state only says "wait": whose tokens are looked for is the verified
 * caller's, so a forged state can make a call wait, never act as anyone else.
 */
export function signInRound(ctx: ServerContext): {
  hook: (prompt: SignInPrompt) => Promise<SignInAnswer>;
  asked: () => SignInPrompt | undefined;
  retry: boolean;
} {
  let asked: SignInPrompt | undefined;
  const retry = ctx.mcpReq.requestState() === SIGN_IN_STATE;
  const opens = canOpenUrl(ctx);
  const hook = async (prompt: SignInPrompt): Promise<SignInAnswer> => {
    if (!opens) return "unsupported";
    if (!retry) {
      asked = prompt;
      return "deferred";
    }
    const view = inputResponse(ctx.mcpReq.inputResponses, SIGN_IN_KEY);
    if (view.kind !== "elicit" || view.action !== "accept") return "declined";
    return (await prompt.completed({ signal: ctx.mcpReq.signal })) ? "signedIn" : "timeout";
  };
  return { hook, asked: () => asked, retry };
}

/** The input_required result that asks a 2026-07-28 client to have the person sign in at the prompt's URL. */
export function signInRequired(prompt: SignInPrompt): InputRequiredResult {
  return inputRequired({
    inputRequests: { [SIGN_IN_KEY]: inputRequired.elicitUrl({ message: prompt.message, url: prompt.url }) },
    requestState: SIGN_IN_STATE,
  });
}

/** Whether the request's client declares URL-mode elicitation (2026-07-28 sends its capabilities with each request). */
function canOpenUrl(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation?.url !== undefined;
}
