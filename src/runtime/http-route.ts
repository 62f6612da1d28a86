// A route the engine's parts add to the HTTP server beside the MCP endpoint (the sign-in callback, sign-out): plain
// data and one handler, so the runtime says what to answer and the binding (server/http-routes.ts) how.

import type { Caller } from "./types.js";

export interface HttpRoute {
  /** Exact path, e.g. `/oauth/callback`. */
  path: string;
  method: "GET" | "POST";
  /**
   * `public`: answered for anyone (the provider's redirect brings a browser, which has no MCP token);
   * `caller`: behind the endpoint's auth, as `/mcp` is, and given the verified caller.
   */
  access: "public" | "caller";
  handle(request: { query: URLSearchParams; caller?: Caller }): Promise<{ status: number; text: string }>;
}
