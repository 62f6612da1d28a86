// One POST to an OAuth 2.0 token endpoint (RFC 6749 §3.2), as client credentials, token exchange (RFC 8693), the
// authorization code and refresh grants and revocation (RFC 7009) all send it: a form, the client authenticated by
// HTTP Basic over the form-encoded id and secret (§2.3.1) or in the form itself, JSON asked for, the answer
// bounded. Each caller words its own failures; this only sends and parses.

import type { Dispatcher } from "undici";
import { send, sharedDispatcher } from "../http/client.js";

/** Token answers are small: more than this is not a token endpoint's answer. */
export const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
export const DEFAULT_TOKEN_TIMEOUT_MS = 30_000;

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post";

export interface TokenClient {
  clientId: string;
  /** Absent for a public client (PKCE): the id goes in the form. */
  clientSecret?: string;
  /** Default client_secret_basic. */
  authMethod?: ClientAuthMethod;
}

export interface TokenAnswer {
  status: number;
  /** The JSON object answered (or a form-encoded one, as some older servers send); undefined when neither. */
  body: Record<string, unknown> | undefined;
}

/** `text` as application/x-www-form-urlencoded encodes it, as client ids and secrets must be before Basic. */
export function formEncode(text: string): string {
  return new URLSearchParams([["", text]]).toString().slice(1);
}

/** The secret values a request for `client` carries in some form, to mask in whatever is shown of it. */
export function clientSecrets(client: TokenClient): string[] {
  if (client.clientSecret === undefined) return [];
  const pair = `${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`;
  return [client.clientSecret, formEncode(client.clientSecret), pair, Buffer.from(pair).toString("base64")];
}

/** Sends the form; rejects with an UpstreamFailure when no answer came (network, timeout, too big). */
export async function postTokenForm({
  url,
  form,
  client,
  dispatcher,
  timeoutMs = DEFAULT_TOKEN_TIMEOUT_MS,
}: {
  url: URL;
  form: URLSearchParams;
  client: TokenClient;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}): Promise<TokenAnswer> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const fields = new URLSearchParams(form);
  const { clientId, clientSecret, authMethod = "client_secret_basic" } = client;
  if (clientSecret === undefined) fields.set("client_id", clientId);
  else if (authMethod === "client_secret_basic") {
    const pair = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  } else {
    fields.set("client_id", clientId);
    fields.set("client_secret", clientSecret);
  }
  const response = await send(
    {
      method: "POST",
      origin: url.origin,
      path: url.pathname + url.search,
      headers,
      body: Buffer.from(fields.toString()),
    },
    {
      dispatcher: dispatcher ?? sharedDispatcher(),
      timeoutMs,
      maxResponseBytes: MAX_TOKEN_RESPONSE_BYTES,
      // A token request is not idempotent (a code or a refresh token is used up): never sent twice.
      retryDelaysMs: [],
    },
  );
  // An answer past the bound is not read at all: a form-encoded one cut there would give a cut token, or an
  // error_description ending in whatever piece of an echoed secret the cut left (a JSON one fails to parse anyway).
  const body = response.truncated ? undefined : parseBody(response.body, response.headers["content-type"]);
  return { status: response.status, body };
}

export function parseBody(body: Buffer, contentType: string | undefined): Record<string, unknown> | undefined {
  const text = body.toString("utf8");
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    // Some older servers answer form-encoded.
    if (contentType?.toLowerCase().startsWith("application/x-www-form-urlencoded"))
      return Object.fromEntries(new URLSearchParams(text));
    return undefined;
  }
}
