// JSON-RPC error codes this server answers with that the SDK has no name for: its ProtocolErrorCode names the
// specification's own (-32700 to -32600 and a few MCP ones); -32000 to -32099 are left to each implementation.

/**
 * A request the transport or the server refuses before any method runs (method not allowed, shutting down, no
 * session id, a refused host or origin, a body too big) and a call ended by shutdown: what the SDK v1 called
 * ErrorCode.ConnectionClosed and the SDK's own HTTP transports answer in these cases.
 */
export const SERVER_ERROR = -32000;
/** A session id this server does not know, or not for this caller (answered with HTTP 404). */
export const SESSION_NOT_FOUND = -32001;
/** A verified caller that no profile admits (profiles.ts): answered to each request, 403 over HTTP. */
export const PROFILE_REFUSED = -32003;
