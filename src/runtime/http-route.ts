// A route the engine's parts add to the HTTP server beside the MCP endpoint (the sign-in callback, sign-out): plain
// data and one handler, so the runtime says what to answer and the binding (server/http-routes.ts) how.

import type { IncomingMessage, ServerResponse } from "node:http";
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
  /** A POST from an HTML form: its body (urlencoded, at most MAX_FORM_BYTES) is read and given as `form`. */
  form?: boolean;
  handle(request: RouteRequest): Promise<RouteAnswer>;
}

export interface RouteRequest {
  query: URLSearchParams;
  caller?: Caller;
  form?: URLSearchParams;
  /** The `Origin` and `Sec-Fetch-Site` headers, for a form route to refuse a post from another site. */
  origin?: string;
  fetchSite?: string;
}

/** Plain text, or a page (sent with a CSP that allows no script and only forms posting to the same origin). */
export type RouteAnswer = { status: number; text: string } | { status: number; html: string };

/** A form route's body is refused past this. */
export const MAX_FORM_BYTES = 64 * 1024;

/**
 * What the endpoint's auth says of a request's bearer token: the verified caller, or undefined (none, or refused).
 * Given to a mount so it can accept the endpoint's own tokens (the console's OAuth admins) without its own verifier.
 */
export type VerifyBearer = () => Promise<Caller | undefined>;

/** A request body read within the server's bounds (a mount's, as the MCP endpoint's). */
export type RequestBody =
  | { outcome: "read"; text: string }
  /**
   * Refused before it was all read (longer than the limit, or past the server's budget of bodies arriving): answer
   * `status` with `headers`, which close the connection (the rest of the body is left unread).
   */
  | { outcome: "refused"; refused: { status: number; message: string; headers: Record<string, string> } }
  /** The client went away first, or the server's request timeout ended it (Node answered 408): nobody to answer. */
  | { outcome: "aborted" };

/**
 * Reads the request's body, at most `limit` bytes, its bytes counted while they arrive against the server's budget
 * of bodies arriving, all callers together and `owner`'s share (a principal, an admin, an address).
 */
export type ReadBody = (request: { limit: number; owner: string }) => Promise<RequestBody>;

/** A request to a mount, with what the server lends it. */
export interface MountRequest {
  req: IncomingMessage;
  res: ServerResponse;
  verifyBearer: VerifyBearer;
  /** The only way a mount reads a body: within the server's bounds, as the MCP endpoint's are. */
  readBody: ReadBody;
  /** The server's log, bounded: lines cut at a length, `refused: …` lines summarised past the first few a minute. */
  log: (line: string) => void;
}

/**
 * A part of the HTTP server with pages and an API of its own under one path prefix (the console, src/console): it
 * answers every request under `prefix` itself, with its own authentication, after the server's Host check.
 */
export interface HttpMount {
  /** e.g. `/console`: the mount answers this path and every path below it. */
  prefix: string;
  handle(request: MountRequest): Promise<void>;
  /**
   * The server is shutting down: end what is still open (a long poll) so the shutdown need not wait for it. Its
   * answers then go out, and the server closes the connections once they are idle.
   */
  close?(): void;
}
