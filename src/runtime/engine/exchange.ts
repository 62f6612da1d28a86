// One request and its answer: sent with the call's limits and gate (http.ts), the body masked before anything
// reads it, then mapped to a tool result and checked against the output schema (response.ts). A failure to get an
// answer (timeout, cancellation, network, redirect) is a result saying so, never a rejection.

import type { Tool } from "../../catalog/types.js";
import type { AuditOutcome } from "../audit/audit-record.js";
import { send, sharedDispatcher, UpstreamFailure, type UpstreamResponse } from "../http/client.js";
import { maskResponse } from "../secrets/masked-response.js";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "../options.js";
import type { RequestGate } from "../http/client.js";
import { ResponseText } from "../http/response-text.js";
import { errorResult, mapResponse } from "../http/response.js";
import { Masker } from "../secrets/secrets.js";
import type { CallContext } from "../types.js";
import type { Exchanged, Prepared } from "./call.js";
import type { EngineParts } from "./parts.js";

/** URLs in messages are cut to this (as in the audit log). */
const SHOWN_URL_CHARS = 2_000;

const FAILURE_HINTS: Record<UpstreamFailure["kind"], string> = {
  timeout: "The API did not answer in time; it may be slow or down. Try again later, or ask for less.",
  network: "The API could not be reached; it may be down. Trying again later may work.",
  cancelled: "The call was cancelled before the API answered; it may or may not have taken effect.",
  redirect: "The API sent the request elsewhere, and that was not followed.",
  invalid: "Nothing was sent; the request as configured cannot be sent over HTTP.",
  not_sent: "This server's rate limit for the API held it back; nothing more was sent.",
};

const FAILURE_OUTCOMES: Record<UpstreamFailure["kind"], AuditOutcome> = {
  timeout: "timeout",
  cancelled: "cancelled",
  not_sent: "rate_limited",
  network: "network_error",
  redirect: "network_error",
  invalid: "network_error",
};

export async function exchange({
  parts,
  prepared: { tool, request, secrets },
  context,
  gate,
}: {
  parts: EngineParts;
  prepared: Prepared;
  context: CallContext;
  gate: RequestGate;
}): Promise<Exchanged> {
  const { options } = parts;
  let response: UpstreamResponse;
  const masker = new Masker(secrets);
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  // Arguments can make a URL megabytes long: messages show it masked, then cut.
  const shownUrl = (url: string): string => {
    const clipped = masker.clip(url, SHOWN_URL_CHARS);
    return clipped.cut ? `${clipped.text}…` : clipped.text;
  };
  try {
    response = await send(request, {
      dispatcher: options.dispatcher ?? sharedDispatcher(),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      // Read past the limit by the longest form of a secret, so one across the limit is masked whole.
      maxResponseBytes: maxBytes,
      lookaheadBytes: masker.lookaheadBytes,
      shownUrl,
      gate,
      ...(context.signal ? { signal: context.signal } : {}),
      ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}),
    });
  } catch (error) {
    if (!(error instanceof UpstreamFailure)) throw error;
    const result = errorResult(`${error.message}. ${FAILURE_HINTS[error.kind]}`);
    return { result, outcome: FAILURE_OUTCOMES[error.kind] };
  }
  // An upstream may echo what it was sent: the body is masked before anything parses, encodes or cuts it.
  response = maskResponse({ response, masker, maxBytes });
  const text = responseText({ parts, tool });
  const result = mapResponse({
    response,
    tool,
    validator: parts.validator,
    outputValidation: parts.outputValidation,
    method: request.method,
    maxBytes,
    shownUrl,
    text,
  });
  const success = response.status >= 200 && response.status < 300;
  const outcome: AuditOutcome = !success ? "http_error" : result.isError ? "output_mismatch" : "ok";
  return { result, outcome, status: response.status, hidden: text.removed };
}

/** How the API's text reaches the model for this tool: its source's setting, or the server's (default strip). */
function responseText({ parts, tool }: { parts: EngineParts; tool: Tool }): ResponseText {
  const { responseText, responseTextSources, markResponseText } = parts.options;
  const mode = responseTextSources?.[tool.source || "default"] ?? responseText ?? "strip";
  return new ResponseText({ mode, mark: markResponseText === true });
}
