// Headers a tool argument may never set: HTTP's own framing and routing (set by the client library, and a wrong
// value breaks or smuggles the request), and those OpenAPI says to ignore as parameters (ours to set).

/** Framing and routing: a parameter with one of these names is left out, with a warning. */
export const TRANSPORT_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
]);

/** OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored. */
export const OPENAPI_IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return TRANSPORT_HEADERS.has(lower) || OPENAPI_IGNORED_HEADERS.has(lower);
}
