// The client's trace context carried on to the upstream (trace-context.ts reads and makes the headers).

import { childTrace } from "../http/trace-context.js";
import type { CallContext, PreparedRequest } from "../types.js";

/**
 * The request with the client's trace context carried on. A `traceparent` or `tracestate` the request already has
 * (the operation's own header parameter, a static header, a credential) is what the document and the operator asked
 * to send, so it is kept and none of ours is added: the client's trace is observability, theirs is the request's
 * content, and the two headers only make sense as a pair from one source.
 */
export function withTrace(
  request: PreparedRequest,
  incoming: CallContext["trace"],
): { request: PreparedRequest; spanId?: string } {
  if (!incoming || "traceparent" in request.headers || "tracestate" in request.headers) return { request };
  const outgoing = childTrace(incoming);
  if (!outgoing) return { request };
  return { request: { ...request, headers: { ...request.headers, ...outgoing.headers } }, spanId: outgoing.spanId };
}
