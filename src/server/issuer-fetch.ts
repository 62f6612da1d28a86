// How the endpoint talks to authorization servers: small JSON documents (metadata, key sets) fetched with the
// runtime's bounded send(), and a backoff that keeps a failing server from being asked again on every request.

import { messageOf } from "../catalog/errors.js";
import { send, sharedDispatcher, UpstreamFailure, type UpstreamResponse } from "../runtime/http/client.js";

const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** After a failed discovery or JWKS fetch, requests needing it are refused for this long before it is tried again. */
export const RETRY_MS = 10_000;

/** Tokens cannot be checked right now (the issuer's metadata or keys are unavailable): try again later. */
export class AuthUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number = RETRY_MS / 1000,
  ) {
    super(message);
  }
}

/** Runs a task unless it failed less than RETRY_MS ago; then it fails at once, with what went wrong last time. */
export class Backoff {
  private failure: { at: number; message: string } | undefined;

  async run<T>({ what, task }: { what: string; task: () => Promise<T> }): Promise<T> {
    const left = this.failure ? this.failure.at + RETRY_MS - Date.now() : 0;
    if (this.failure && left > 0) {
      const seconds = Math.ceil(left / 1000);
      throw new AuthUnavailable(
        `${what} failed moments ago (${this.failure.message}); next try in ${seconds} s`,
        seconds,
      );
    }
    try {
      const result = await task();
      this.failure = undefined;
      return result;
    } catch (error) {
      this.failure = { at: Date.now(), message: messageOf(error) };
      throw error;
    }
  }
}

/** A document fetched: its JSON, or why there is none; `missing` when it is not there at all (not 200). */
export type JsonDocument = { ok: true; json: unknown } | { ok: false; problem: string; missing: boolean };

/**
 * GETs a small JSON document: within 5 s, at most 1 MiB, redirects followed within the URL's origin only (so the
 * https check made on the URL holds for every hop), not retried (the backoff decides when to ask again). A server
 * that cannot be reached throws AuthUnavailable.
 */
export async function fetchJsonDocument(href: string): Promise<JsonDocument> {
  const url = new URL(href);
  const headers = { accept: "application/json" };
  const request = { method: "GET", origin: url.origin, path: url.pathname + url.search, headers };
  let response: UpstreamResponse;
  try {
    response = await send(request, {
      dispatcher: sharedDispatcher(),
      timeoutMs: FETCH_TIMEOUT_MS,
      maxResponseBytes: MAX_DOCUMENT_BYTES,
      retryDelaysMs: [],
    });
  } catch (error) {
    // Sent elsewhere: not here, as for a 404 (the other origin passed no https check).
    if (error instanceof UpstreamFailure && error.kind === "redirect")
      return { ok: false, problem: error.message, missing: true };
    // The failure names the request: `[GET] "<url>": no complete response within 5000 ms`, say.
    throw new AuthUnavailable(`cannot fetch: ${messageOf(error)}`);
  }
  if (response.status !== 200) return { ok: false, problem: `HTTP ${response.status}`, missing: true };
  if (response.truncated) return { ok: false, problem: `larger than ${MAX_DOCUMENT_BYTES} bytes`, missing: false };
  try {
    return { ok: true, json: JSON.parse(response.body.toString("utf8")) as unknown };
  } catch {
    return { ok: false, problem: "not JSON", missing: false };
  }
}
