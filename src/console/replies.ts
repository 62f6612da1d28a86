// How the console answers: every response with a strict Content-Security-Policy (no inline script or style, nothing
// from elsewhere, never framed), nosniff and no referrer; JSON with every configured secret masked as a last net
// (the engine's masking), whatever a page handler put in it; and the same-origin test for requests that change things.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { ReadBody } from "../runtime/http-route.js";
import { maskValue } from "../runtime/secrets/secrets.js";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

export function sendJson({
  res,
  status = 200,
  json,
  secrets,
  headers = {},
}: {
  res: ServerResponse;
  status?: number;
  json: unknown;
  secrets: readonly string[];
  headers?: Record<string, string>;
}): void {
  res
    .writeHead(status, {
      ...SECURITY_HEADERS,
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    })
    .end(JSON.stringify(maskValue(json, secrets)));
}

export function sendText({
  res,
  status,
  type,
  text,
  cache = "no-store",
}: {
  res: ServerResponse;
  status: number;
  type: string;
  text: string;
  cache?: string;
}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, "cache-control": cache }).end(text);
}

/**
 * Whether a request that changes something comes from the console's own pages: a browser says where a request
 * comes from (Sec-Fetch-Site, Origin), and a page of another site cannot make it say this one. A request saying
 * neither is refused too: the console's pages always send both.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return false;
  const origin = req.headers.origin;
  if (origin === undefined) return site === "same-origin";
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** A JSON body, or how to refuse it (`error` and the headers to answer with), or nobody to answer. */
export type JsonBody =
  | { outcome: "read"; json: unknown }
  | { outcome: "refused"; refused: { status: number; error: string; headers: Record<string, string> } }
  | { outcome: "aborted" };

/**
 * A JSON body sent as application/json, read by the server within `limit` bytes and its budget of bodies arriving
 * (counted as `owner`'s share), under its request timeout: nothing of it is read past any of them.
 */
export async function readJson({
  req,
  readBody,
  limit,
  owner,
}: {
  req: IncomingMessage;
  readBody: ReadBody;
  limit: number;
  owner: string;
}): Promise<JsonBody> {
  const notJson = `Send a JSON body (application/json, at most ${limit} bytes).`;
  // Not read at all: the connection is closed rather than left to carry the unread rest.
  if (!/^application\/json\b/i.test(req.headers["content-type"] ?? ""))
    return { outcome: "refused", refused: { status: 400, error: notJson, headers: { connection: "close" } } };
  const body = await readBody({ limit, owner });
  if (body.outcome === "aborted") return body;
  if (body.outcome === "refused") {
    const { status, message, headers } = body.refused;
    return { outcome: "refused", refused: { status, error: message, headers } };
  }
  try {
    return { outcome: "read", json: JSON.parse(body.text) as unknown };
  } catch {
    return { outcome: "refused", refused: { status: 400, error: notJson, headers: {} } };
  }
}
