// The MCP binding: the one module that imports the MCP SDK.

export type { AuthConfig, OAuthResourceAuthConfig, StaticTokenAuthConfig } from "./auth.js";
export type { AuthResult, EndpointAuth, Principal } from "./auth-mode.js";
export { createEndpointAuth, protectedResourceMetadataUrl } from "./auth.js";
export { CallTracker, ShutdownError } from "./calls.js";
export type { ServerSettings } from "./command-line.js";
export { readServerCommandLine } from "./command-line.js";
export { isLoopbackHost, RequestGuard } from "./guard.js";
export type { HttpHandle, HttpOptions } from "./http.js";
export { serveHttp } from "./http.js";
export type { AddressOptionNames } from "./listen.js";
export type { McpServerOptions, ServerIdentity } from "./mcp.js";
export { createMcpServer } from "./mcp.js";
export type { OptionKind, ServerOption } from "./options.js";
export { SERVER_OPTIONS, serverUsage } from "./options.js";
export type { SessionLimits } from "./sessions.js";
export type { RequestLimits } from "./bodies.js";
export { DEFAULT_REQUEST_LIMITS } from "./bodies.js";
export { DEFAULT_SESSION_LIMITS } from "./sessions.js";
export type { StdioHandle, StdioOptions } from "./stdio.js";
export { serveStdio } from "./stdio.js";
