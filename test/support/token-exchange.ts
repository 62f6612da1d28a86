// A real RFC 8693 token-exchange endpoint on 127.0.0.1: it checks the grant type, the client's authentication, the
// audience and that the subject token is a JWT signed by the test's authorization server (jose, against its JWKS),
// then issues an upstream token naming the subject and a counter. It records each exchange and can refuse on demand.

import { createRemoteJWKSet, jwtVerify } from "jose";
import type { Reply } from "./upstream.js";
import { Upstream } from "./upstream.js";

export const EXCHANGE_CLIENT = { id: "mcp-gateway", secret: "exchange-client-secret-5b1d" };
export const UPSTREAM_AUDIENCE = "https://api.example.com";

export interface Exchange {
  subject: string;
  audience: string | null;
  scope: string | null;
  issued: string;
}

export interface ExchangeEndpoint {
  upstream: Upstream;
  url: string;
  exchanges: Exchange[];
  /** Set to refuse every exchange with this error (the body RFC 6749 §5.2 describes). */
  refuse?: { error: string; error_description?: string };
  /** Seconds the issued tokens last. */
  expiresIn: number;
  /** Milliseconds each exchange takes (default none): long enough, calls made at once all find one under way. */
  delayMs?: number;
  close(): Promise<void>;
}

/** `jwks`: the authorization server's key set URL, which signs the subject tokens. */
export async function startExchangeEndpoint({
  jwks,
  issuer,
}: {
  jwks: string;
  issuer: string;
}): Promise<ExchangeEndpoint> {
  const upstream = await Upstream.start();
  const keys = createRemoteJWKSet(new URL(jwks));
  const endpoint: ExchangeEndpoint = {
    upstream,
    url: `${upstream.url}/token`,
    exchanges: [],
    expiresIn: 3600,
    close: () => upstream.close(),
  };
  const answer = (res: Parameters<Reply>[0]["res"], status: number, body: object): void =>
    void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  upstream.on("POST", "/token", async ({ res, recorded }) => {
    const form = new URLSearchParams(recorded.body.toString("utf8"));
    const basic = `Basic ${Buffer.from(`${EXCHANGE_CLIENT.id}:${EXCHANGE_CLIENT.secret}`).toString("base64")}`;
    if (recorded.headers.authorization !== basic) return answer(res, 401, { error: "invalid_client" });
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:token-exchange")
      return answer(res, 400, { error: "unsupported_grant_type" });
    if (form.get("subject_token_type") !== "urn:ietf:params:oauth:token-type:access_token")
      return answer(res, 400, { error: "invalid_request", error_description: "subject_token_type" });
    if (endpoint.refuse) return answer(res, 400, endpoint.refuse);
    let subject: string;
    try {
      const { payload } = await jwtVerify(form.get("subject_token") ?? "", keys, { issuer });
      subject = String(payload.sub);
    } catch {
      return answer(res, 400, { error: "invalid_grant", error_description: "the subject token is not valid" });
    }
    if (form.get("audience") !== UPSTREAM_AUDIENCE) return answer(res, 400, { error: "invalid_target" });
    if (endpoint.delayMs) await new Promise((resolve) => setTimeout(resolve, endpoint.delayMs));
    const issued = `upstream-${subject}-${endpoint.exchanges.length + 1}`;
    endpoint.exchanges.push({ subject, audience: form.get("audience"), scope: form.get("scope"), issued });
    answer(res, 200, {
      access_token: issued,
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: endpoint.expiresIn,
    });
  });
  return endpoint;
}
