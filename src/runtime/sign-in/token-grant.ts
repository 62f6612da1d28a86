// A user's token request at the provider's token endpoint (RFC 6749 §4.1.3 authorization code with the PKCE
// verifier, §6 refresh), and a revocation (RFC 7009), sent by token-request.ts. The client secret, when there is one,
// goes in HTTP basic, or in the form for a provider that wants it there (GitHub); an answer holding `error` is a
// refusal whatever its status (GitHub answers 200). The messages name the endpoint and the provider's error code,
// never a token or the secret.

import { OpenApiMcpError } from "../../catalog/errors.js";
import { isAllowedScheme } from "../../catalog/url.js";
import type { Dispatcher } from "undici";
import { UpstreamFailure } from "../http/client.js";
import { maskClipped } from "../secrets/secrets.js";
import { postTokenForm, type TokenAnswer } from "../credentials/token-request.js";
import type { StoredTokens } from "./token-store.js";

export interface GrantClient {
  clientId: string;
  clientSecret?: string;
  /** How the secret is sent (RFC 6749 §2.3.1): HTTP basic (default), or in the form. */
  authMethod?: "client_secret_basic" | "client_secret_post";
  allowInsecureHttp?: boolean;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/** The provider would not give tokens: `refused` when it said the grant is bad (invalid_grant), so sign in again. */
export class GrantError extends OpenApiMcpError {
  constructor(
    readonly refused: boolean,
    message: string,
  ) {
    super({ code: "E_SIGN_IN", message });
  }
}

/** The grant itself is bad (sign in again): RFC 6749's code, and GitHub's for a bad code or refresh token. */
const REFUSED_GRANT = new Set(["invalid_grant", "bad_verification_code", "bad_refresh_token"]);

/** What a token request obtained: the tokens to keep, and an OpenID Connect ID token when the provider sent one. */
export type GrantedTokens = StoredTokens & { idToken?: string };

/** Tokens for `form` (grant_type and its fields) from `url`; `now` is when the request left. */
export async function requestTokens({
  url,
  form,
  client,
  now = Date.now(),
}: {
  url: string;
  form: Record<string, string>;
  client: GrantClient;
  now?: number;
}): Promise<GrantedTokens> {
  const body = await post({ url, form, client, what: "token request" });
  const accessToken = body.access_token;
  if (typeof accessToken !== "string" || accessToken === "")
    throw new GrantError(false, `the token request to ${url} answered no access_token`);
  const expiresIn = Number(body.expires_in);
  return {
    accessToken,
    ...(typeof body.refresh_token === "string" ? { refreshToken: body.refresh_token } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: now + expiresIn * 1000 } : {}),
    obtainedAt: now,
    ...(typeof body.scope === "string" ? { scope: body.scope } : {}),
    ...(typeof body.id_token === "string" ? { idToken: body.id_token } : {}),
  };
}

/** Asks the provider to revoke `token` (best effort: a provider without the endpoint just keeps it until it expires). */
export async function revokeToken({
  url,
  token,
  hint,
  client,
}: {
  url: string;
  token: string;
  hint: "access_token" | "refresh_token";
  client: GrantClient;
}): Promise<void> {
  await post({ url, form: { token, token_type_hint: hint }, client, what: "revocation" });
}

async function post({
  url,
  form,
  client,
  what,
}: {
  url: string;
  form: Record<string, string>;
  client: GrantClient;
  what: string;
}): Promise<Record<string, unknown>> {
  const parsed = new URL(url);
  if (!isAllowedScheme(parsed, client.allowInsecureHttp === true))
    throw new GrantError(false, `the ${what} to ${url} was not sent: it must be https:// (or loopback)`);
  const { clientId, clientSecret, authMethod } = client;
  let response: TokenAnswer;
  try {
    response = await postTokenForm({
      url: parsed,
      form: new URLSearchParams(form),
      client: {
        clientId,
        ...(clientSecret !== undefined ? { clientSecret } : {}),
        ...(authMethod !== undefined ? { authMethod } : {}),
      },
      ...(client.dispatcher ? { dispatcher: client.dispatcher } : {}),
      ...(client.timeoutMs !== undefined ? { timeoutMs: client.timeoutMs } : {}),
    });
  } catch (error) {
    if (error instanceof UpstreamFailure) throw new GrantError(false, `the ${what} to ${url} failed: ${error.message}`);
    throw error;
  }
  // A revocation may answer an empty body.
  const body = response.body ?? {};
  const code = typeof body.error === "string" ? body.error : undefined;
  if (response.status >= 200 && response.status < 300 && code === undefined) return body;
  const secrets = [...Object.values(form), client.clientSecret ?? ""].filter((s) => s.length >= 8);
  const said = typeof body.error_description === "string" ? `${code}: ${body.error_description}` : code;
  const detail = said ? ` (${maskClipped({ text: said, secrets, maxChars: 200 })})` : "";
  throw new GrantError(
    code !== undefined && REFUSED_GRANT.has(code),
    `the ${what} to ${url} was refused: HTTP ${response.status}${detail}`,
  );
}
