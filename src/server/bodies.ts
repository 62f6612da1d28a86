// Requests still arriving, bounded. A client that trickles a body holds the bytes received so far: without bounds,
// 100 slow connections held 4 MiB each for 300 s (Node's default request timeout). Node's own headersTimeout and
// requestTimeout bound the time (its server answers 408 and closes the connection); a budget bounds the bytes held
// by bodies not yet complete, overall and per owner (a verified principal; at the console, an admin or the address
// a login comes from): the request whose bytes do not fit gets 503. Every body any listener reads is read here.

import type { IncomingMessage } from "node:http";
import {
  DEFAULT_HEADERS_TIMEOUT_SECONDS,
  DEFAULT_MAX_PENDING_BODY_BYTES,
  DEFAULT_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
} from "../runtime/options.js";

export interface RequestLimits {
  /** A request's headers must arrive within this (ms). Default 10 s (at most the request timeout). */
  headersTimeoutMs?: number;
  /** A whole request, headers and body, must arrive within this (ms). Default 30 s. */
  requestTimeoutMs?: number;
  /** Bytes of request bodies still arriving held at most, all callers together. Default 64 MiB. */
  maxPendingBodyBytes?: number;
  /** The same per owner: a verified principal, a console admin, a console login's address. Default 16 MiB. */
  maxPendingBodyBytesPerPrincipal?: number;
}

export const DEFAULT_REQUEST_LIMITS: Required<RequestLimits> = {
  headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_SECONDS * 1000,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000,
  maxPendingBodyBytes: DEFAULT_MAX_PENDING_BODY_BYTES,
  maxPendingBodyBytesPerPrincipal: DEFAULT_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL,
};

/** Node's server options enforcing the timeouts. It checks them every connectionsCheckingInterval (30 s by default). */
export function timeoutOptions(limits: Required<RequestLimits>) {
  const { requestTimeoutMs } = limits;
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(limits.headersTimeoutMs, requestTimeoutMs);
  const connectionsCheckingInterval = Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4)));
  return { headersTimeout, requestTimeout: requestTimeoutMs, connectionsCheckingInterval };
}

/** Bytes held by bodies still arriving, overall and by owner. */
export class BodyBudget {
  private total = 0;
  private readonly byOwner = new Map<string, number>();

  constructor(private readonly limits: Required<RequestLimits>) {}

  /** Takes `bytes` for `owner`, or says which limit they would pass (and takes nothing). */
  take({ owner, bytes }: { owner: string | undefined; bytes: number }): string | undefined {
    const { maxPendingBodyBytes, maxPendingBodyBytesPerPrincipal } = this.limits;
    if (this.total + bytes > maxPendingBodyBytes)
      return `${maxPendingBodyBytes} bytes of request bodies arriving, all callers together`;
    const held = owner === undefined ? 0 : (this.byOwner.get(owner) ?? 0);
    if (owner !== undefined && held + bytes > maxPendingBodyBytesPerPrincipal)
      return `${maxPendingBodyBytesPerPrincipal} bytes of request bodies arriving for one caller`;
    this.total += bytes;
    if (owner !== undefined) this.byOwner.set(owner, held + bytes);
    return undefined;
  }

  give({ owner, bytes }: { owner: string | undefined; bytes: number }): void {
    this.total -= bytes;
    if (owner === undefined) return;
    const left = (this.byOwner.get(owner) ?? 0) - bytes;
    if (left > 0) this.byOwner.set(owner, left);
    else this.byOwner.delete(owner);
  }
}

export type Body =
  | { outcome: "read"; text: string }
  /** Longer than the limit (declared or sent). */
  | { outcome: "tooLarge" }
  /** Its bytes would pass the budget: `limit` says which. */
  | { outcome: "overBudget"; limit: string }
  /** The connection closed first: the client went away, or Node's request timeout ended it (which answered 408). */
  | { outcome: "aborted" };

/**
 * Reads a request's body within `limit` bytes, holding its bytes in `budget` while it arrives. Stops reading at the
 * first refusal: the rest of the body is left unread, so the caller must close the connection.
 */
export function readBody({
  req,
  limit,
  budget,
  owner,
}: {
  req: IncomingMessage;
  limit: number;
  budget: BodyBudget;
  owner: string | undefined;
}): Promise<Body> {
  return new Promise((resolve) => {
    if (Number(req.headers["content-length"]) > limit) return resolve({ outcome: "tooLarge" });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (body: Body): void => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      if (body.outcome !== "read") req.pause();
      budget.give({ owner, bytes: size });
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > limit) return void settle({ outcome: "tooLarge" });
      const refused = budget.take({ owner, bytes: chunk.length });
      if (refused !== undefined) return void settle({ outcome: "overBudget", limit: refused });
      size += chunk.length;
      chunks.push(chunk);
    };
    if (req.destroyed) return resolve({ outcome: "aborted" });
    req.on("data", onData);
    req.once("end", () => settle({ outcome: "read", text: Buffer.concat(chunks).toString("utf8") }));
    // After `end`, or a refusal, this changes nothing. (An aborted request emits `error` only to listeners: none.)
    req.once("close", () => settle({ outcome: "aborted" }));
  });
}

/**
 * How a refused body is answered, at `/mcp` and at a mount alike: 413, or 503 with Retry-After (by then every body
 * now arriving is complete or timed out); either closes the connection, since the rest of the body is left unread.
 */
export function bodyRefusal({
  read,
  limit,
  limits,
}: {
  read: Extract<Body, { outcome: "tooLarge" | "overBudget" }>;
  limit: number;
  limits: Required<RequestLimits>;
}): { status: number; message: string; headers: Record<string, string> } {
  if (read.outcome === "tooLarge")
    return {
      status: 413,
      message: `Payload Too Large: Request body must not exceed ${limit} bytes`,
      headers: { connection: "close" },
    };
  return {
    status: 503,
    message: `Server busy: too many request bodies arriving (${read.limit}); retry later`,
    headers: { connection: "close", "retry-after": String(Math.ceil(limits.requestTimeoutMs / 1000)) },
  };
}
