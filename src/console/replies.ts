// How the console answers: every response with a strict Content-Security-Policy (no inline script or style, nothing
// from elsewhere, never framed), nosniff and no referrer; JSON with every configured secret masked as a last net
// (the engine's masking), whatever a page handler put in it; and the same-origin test for requests that change things.

import type { IncomingMessage, ServerResponse } from "node:http";
import { maskValue } from "../runtime/secrets.js";

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

/** Bodies the console reads: arguments for a call, a token at login. */
const MAX_BODY_BYTES = 1024 * 1024;

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

/** A JSON body, bounded; undefined when it is not JSON, too large, or not sent as application/json. */
export async function readJson(req: IncomingMessage): Promise<{ json: unknown } | undefined> {
  if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return { json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return undefined;
  }
}
