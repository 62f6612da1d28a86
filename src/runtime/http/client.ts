// Sending a prepared request with undici: one shared keep-alive Agent, the origin and raw path kept apart (so the
// path is sent exactly as built), an overall timeout, a cap on the body read, retries for idempotent methods on
// connection errors and 502/503/504, and redirects followed by us within the same origin only. Every request that
// leaves, retries and redirects too, passes the caller's gate (the rate limits: ../limits/rate-limit.ts).

import { STATUS_CODES } from "node:http";
import type { Agent, Dispatcher } from "undici";
import { messageOf } from "../../catalog/errors.js";

import { retryAfterMs } from "../limits/retry-after.js";
import type { PreparedRequest } from "../types.js";

export interface UpstreamResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than what was read (the limit and the lookahead) and was cut there. */
  truncated: boolean;
  /** The limit the body was held to, once cut to it (else the body's length is that limit). */
  limit?: number;
  /** The body decoded and masked, once masked (../secrets/masked-response.ts); else decoded from `body` where needed. */
  readonly text?: string;
  /** Where the response finally came from (after redirects). */
  url: string;
}

/** Why a request got no response: the message is written for the model. */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: "timeout" | "network" | "cancelled" | "redirect" | "invalid" | "not_sent",
    message: string,
  ) {
    super(message);
  }
}

/** A request the gate held back: nothing was sent. */
class NotSent extends UpstreamFailure {
  constructor(
    readonly reason: string,
    where: string,
  ) {
    super("not_sent", `${where} was not sent: ${reason}`);
  }
}

/** What `send` needs of a dispatcher: an undici Agent, a MockAgent in tests, or the shared pool. */
export interface Requester {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  /** Settles once `request` hands a request over without waiting first (the shared pool loads undici once). */
  ready?(): Promise<void>;
}

/** Asked before each request leaves and told when it has: the engine's rate limits (../limits/request-gate.ts). */
export interface RequestGate {
  /** Before a request: undefined to send it now, or why it may not go (then nothing is sent). */
  open(): Promise<string | undefined>;
  /** Right after the request was handed to the connection. */
  sent(): void;
}

export interface SendOptions {
  dispatcher: Requester;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Read this many bytes more than the limit, for whoever cuts the body to it afterwards (the masking). */
  lookaheadBytes?: number;
  signal?: AbortSignal;
  /** Delays before the retries of an idempotent request (at most this many retries). */
  retryDelaysMs?: number[];
  /** How a URL shows in a failure's message (the engine masks and shortens it: arguments can make it megabytes). */
  shownUrl?: (url: string) => string;
  /** Every request, retries and redirects too, goes only when this says so. */
  gate?: RequestGate;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);
const RETRIED_STATUSES = new Set([502, 503, 504]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const DEFAULT_RETRY_DELAYS = [200, 600];
/** Sent unless the request names its own: some APIs refuse a request without one (GitHub answers 403). */
export const USER_AGENT = "openapi-mcp";
const MAX_HONOURED_RETRY_AFTER_MS = 2_000;

let sharedAgent: Promise<Agent> | undefined;
/**
 * The process-wide keep-alive connection pool. No cap on connections per origin: in undici 7 a request it
 * refuses keeps its slot in a capped pool for good, and once the slots are gone every call to that origin hangs.
 * Made at the first request: loading undici takes ~70 ms, which a server need not spend before its first answer.
 */
export function sharedDispatcher(): Requester {
  return shared;
}
let loadedAgent: Agent | undefined;
const shared: Requester = {
  async request(options) {
    // Once loaded, handed over in this turn: a rate limit stamps the request right after this call.
    if (loadedAgent) return loadedAgent.request(options);
    await shared.ready?.();
    return loadedAgent!.request(options);
  },
  async ready() {
    sharedAgent ??= import("undici").then(({ Agent }) => new Agent({ keepAliveTimeout: 10_000 }));
    loadedAgent = await sharedAgent;
  },
};

export async function send(request: PreparedRequest, options: SendOptions): Promise<UpstreamResponse> {
  // The HTTP client is loaded before the deadline starts: the timeout is the API's, not this process's first import.
  await options.dispatcher.ready?.();
  // One controller for the whole call, fired by the deadline or the caller; both links are undone at the end, so
  // nothing outlives the call (cheaper than AbortSignal.any + AbortSignal.timeout on every request, too).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("The operation timed out", "TimeoutError"));
  }, options.timeoutMs);
  const onCallerAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onCallerAbort();
  else options.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const signal = controller.signal;
  const shownUrl = options.shownUrl ?? ((url: string) => url);
  const fail = (error: unknown): UpstreamFailure =>
    asFailure({
      error,
      where: `[${request.method}] "${shownUrl(request.origin + request.path)}"`,
      signal,
      timedOut,
      timeoutMs: options.timeoutMs,
    });
  try {
    const delays = IDEMPOTENT.has(request.method) ? (options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS) : [];
    let last: { response: UpstreamResponse } | { failure: UpstreamFailure } | undefined;
    for (let attempt = 0; ; attempt++) {
      let pause = delays[attempt];
      try {
        const response = await followRedirects(request, { ...options, signal });
        pause = pause === undefined ? undefined : retryPause(response, pause);
        if (pause === undefined) return response;
        last = { response };
      } catch (error) {
        const failure = fail(error);
        // A retry the gate refuses ends the call with what the attempt before it got.
        if (failure.kind === "not_sent" && last) {
          if ("response" in last) return last.response;
          throw last.failure;
        }
        if (failure.kind !== "network" || pause === undefined) throw failure;
        last = { failure };
      }
      // A cancellation or the deadline during the pause ends the call like one during a request.
      await sleep(pause, signal).catch((error: unknown) => {
        throw fail(error);
      });
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onCallerAbort);
  }
}

/**
 * How long to wait before trying a response's request again, or undefined to hand the response back. 502/503/504
 * are retried after the usual pause; a 429 or 503 that names a wait (Retry-After) is retried only when the wait
 * is short: a longer one is the model's to know about, not a call to hold open.
 */
function retryPause(response: UpstreamResponse, usual: number): number | undefined {
  const asked =
    response.status === 429 || response.status === 503
      ? retryAfterMs(response.headers["retry-after"], Date.now())
      : undefined;
  if (asked !== undefined) return asked <= MAX_HONOURED_RETRY_AFTER_MS ? asked : undefined;
  return RETRIED_STATUSES.has(response.status) ? usual : undefined;
}

async function followRedirects(
  request: PreparedRequest,
  options: SendOptions & { signal: AbortSignal },
): Promise<UpstreamResponse> {
  const shown = options.shownUrl ?? ((url: string) => url);
  let current = request;
  for (let hop = 0; ; hop++) {
    let response: UpstreamResponse;
    try {
      response = await once(current, options);
    } catch (error) {
      if (hop > 0 && error instanceof NotSent)
        throw new UpstreamFailure(
          "redirect",
          `[${request.method}] "${shown(request.origin + request.path)}" redirected to "${shown(current.origin + current.path)}"; not followed: ${error.reason}`,
        );
      throw error;
    }
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || location === undefined) return response;
    const from = new URL(current.path, current.origin);
    const to = new URL(location, from);
    if (to.origin !== from.origin) {
      // Credentials and arguments stay with the API the tool was made for.
      throw new UpstreamFailure(
        "redirect",
        `[${current.method}] "${shown(from.href)}" redirected to another origin (${shown(to.origin)}); not followed`,
      );
    }
    if (hop >= MAX_REDIRECTS)
      throw new UpstreamFailure(
        "redirect",
        `[${request.method}] "${shown(from.href)}": more than ${MAX_REDIRECTS} redirects`,
      );
    // 303, and 301/302 after a POST, continue as a GET without a body (as browsers do).
    const asGet =
      response.status === 303 || ((response.status === 301 || response.status === 302) && current.method === "POST");
    const { "content-type": _type, "content-length": _length, ...headers } = current.headers;
    current = asGet
      ? { method: "GET", origin: to.origin, path: to.pathname + to.search, headers }
      : { ...current, path: to.pathname + to.search };
  }
}

async function once(
  request: PreparedRequest,
  options: SendOptions & { signal: AbortSignal },
): Promise<UpstreamResponse> {
  const refused = await options.gate?.open();
  if (refused !== undefined)
    throw new NotSent(refused, `[${request.method}] "${(options.shownUrl ?? String)(request.origin + request.path)}"`);
  // Handed over in this turn (the client is loaded: see send), and the gate told at once: its stamp follows it.
  const pending = options.dispatcher.request({
    origin: request.origin,
    path: request.path,
    method: request.method as Dispatcher.HttpMethod,
    headers: withUserAgent(request.headers),
    body:
      request.body === undefined
        ? null
        : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength),
    signal: options.signal,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  options.gate?.sent();
  const response = await pending;
  const chunks: Buffer[] = [];
  const cap = options.maxResponseBytes + (options.lookaheadBytes ?? 0);
  let size = 0;
  let truncated = false;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > cap) {
      chunks.push(buffer.subarray(0, cap - size));
      size = cap;
      truncated = true;
      response.body.destroy();
      break;
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return {
    status: response.statusCode,
    statusText: STATUS_CODES[response.statusCode] ?? "",
    headers,
    body: Buffer.concat(chunks),
    truncated,
    url: request.origin + request.path,
  };
}

function asFailure({
  error,
  where,
  signal,
  timedOut,
  timeoutMs,
}: {
  error: unknown;
  /** `[METHOD] "url"`, as the message shows it. */
  where: string;
  signal: AbortSignal;
  timedOut: boolean;
  timeoutMs: number;
}): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  if (timedOut || isTimeout(error))
    return new UpstreamFailure("timeout", `${where}: no complete response within ${timeoutMs} ms`);
  if (signal.aborted) return new UpstreamFailure("cancelled", `${where}: cancelled`);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code;
  // undici refused to send it (a header it cannot encode, `Expect`…): trying again would not help.
  if (code === "UND_ERR_INVALID_ARG" || code === "UND_ERR_NOT_SUPPORTED")
    return new UpstreamFailure("invalid", `${where}: the request could not be sent: ${messageOf(error)}`);
  const detail = [code, (error as Error).message].filter(Boolean).join(" ");
  return new UpstreamFailure("network", `${where}: ${detail || "the connection failed"}`);
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return (
    code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || (error as Error).name === "TimeoutError"
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function withUserAgent(headers: Record<string, string>): Record<string, string> {
  const named = Object.keys(headers).some((name) => name.toLowerCase() === "user-agent");
  return named ? headers : { ...headers, "user-agent": USER_AGENT };
}
