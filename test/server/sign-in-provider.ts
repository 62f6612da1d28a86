// For the sign-in tests: an OAuth 2.0 provider on 127.0.0.1, written for the test. /authorize signs in whoever
// `user` names (no browser, no form) and redirects with a code bound to the PKCE challenge; /token redeems a code
// only with the verifier whose S256 digest is that challenge (RFC 7636), refreshes (rotating the refresh token),
// and refuses what was revoked or expired; /revoke revokes (RFC 7009). Access tokens are JWTs signed with `jose`.
// What it issued and what it was asked are kept for the tests to look at.

import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { generateKeyPair, SignJWT } from "jose";
import { listen } from "./auth-support.js";

export const CLIENT_ID = "mcp-client";
export const CLIENT_SECRET = "client-secret-canary-7d1";

interface Code {
  challenge: string;
  method: string;
  redirectUri: string;
  user: string;
  used: boolean;
}

export interface SignInProvider {
  url: string;
  /** Who signs in at /authorize next. */
  user: string;
  /** Seconds an access token lives. */
  accessLifetime: number;
  /** Access and refresh tokens issued, in order, and those revoked. */
  issued: { access: string[]; refresh: string[] };
  revoked: Set<string>;
  /** Grant types asked for at /token, in order, with the answer's status. */
  grants: Array<{ grant: string; status: number }>;
  /** Makes every refresh token invalid (as if expired at the provider). */
  expireRefreshTokens(): void;
}

/** Until the test ends; on `port` when a document written before the test names it. */
export async function startSignInProvider({ port: wanted = 0 }: { port?: number } = {}): Promise<SignInProvider> {
  const { privateKey } = await generateKeyPair("ES256");
  const codes = new Map<string, Code>();
  const refreshOwners = new Map<string, string>();
  const provider: SignInProvider = {
    url: "",
    user: "user-a",
    accessLifetime: 3600,
    issued: { access: [], refresh: [] },
    revoked: new Set(),
    grants: [],
    expireRefreshTokens: () => refreshOwners.clear(),
  };
  const issue = async (user: string) => {
    const access = await new SignJWT({ sub: user, jti: randomBytes(8).toString("hex") })
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer(provider.url)
      .setExpirationTime(`${provider.accessLifetime}s`)
      .sign(privateKey);
    const refresh = `rt-${user}-${randomBytes(12).toString("hex")}`;
    refreshOwners.set(refresh, user);
    provider.issued.access.push(access);
    provider.issued.refresh.push(refresh);
    return { access_token: access, token_type: "Bearer", expires_in: provider.accessLifetime, refresh_token: refresh };
  };
  const port = await listen((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, body: unknown) =>
      void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && url.pathname === "/authorize") {
      const q = url.searchParams;
      const redirectUri = q.get("redirect_uri") ?? "";
      if (q.get("client_id") !== CLIENT_ID || q.get("response_type") !== "code" || !q.get("code_challenge"))
        return json(400, { error: "invalid_request" });
      const code = randomBytes(12).toString("hex");
      codes.set(code, {
        challenge: q.get("code_challenge") ?? "",
        method: q.get("code_challenge_method") ?? "plain",
        redirectUri,
        user: provider.user,
        used: false,
      });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (req.method === "POST" && (url.pathname === "/token" || url.pathname === "/revoke")) {
      void form(req).then(async (f) => {
        if (!clientAuthenticated(req)) return json(401, { error: "invalid_client" });
        if (url.pathname === "/revoke") {
          const token = f.get("token") ?? "";
          provider.revoked.add(token);
          refreshOwners.delete(token);
          return json(200, {});
        }
        const grant = f.get("grant_type") ?? "";
        const answer = (status: number, body: unknown) => {
          provider.grants.push({ grant, status });
          json(status, body);
        };
        if (grant === "authorization_code") {
          const code = codes.get(f.get("code") ?? "");
          const verifier = f.get("code_verifier") ?? "";
          const digest = createHash("sha256").update(verifier).digest("base64url");
          if (!code || code.used || code.method !== "S256" || code.challenge !== digest)
            return answer(400, { error: "invalid_grant" });
          if (code.redirectUri !== f.get("redirect_uri")) return answer(400, { error: "invalid_grant" });
          code.used = true;
          return answer(200, await issue(code.user));
        }
        if (grant === "refresh_token") {
          const old = f.get("refresh_token") ?? "";
          const user = refreshOwners.get(old);
          if (!user) return answer(400, { error: "invalid_grant" });
          refreshOwners.delete(old);
          return answer(200, await issue(user));
        }
        return answer(400, { error: "unsupported_grant_type" });
      });
      return;
    }
    json(404, { error: "not found" });
  }, wanted);
  provider.url = `http://127.0.0.1:${port}`;
  return provider;
}

function clientAuthenticated(req: IncomingMessage): boolean {
  const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
  return req.headers.authorization === expected;
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * What a person does with a sign-in link in a browser: the provider signs in and redirects to the callback, whose
 * page asks them to confirm whom the account is for; they confirm (or cancel), and the server answers.
 */
export async function follow(
  url: string,
  { answer = "connect" }: { answer?: "connect" | "cancel" } = {},
): Promise<{ status: number; text: string; callback: string; page: string }> {
  const { callback, status, page } = await openLink(url);
  if (status !== 200) return { status, text: page, callback, page };
  const posted = await postConfirmation({ callback, page, answer });
  return { status: posted.status, text: await posted.text(), callback, page };
}

/** Only the first half: signed in at the provider, the callback's page shown, nothing answered on it. */
export async function openLink(url: string): Promise<{ status: number; page: string; callback: string }> {
  const authorize = await fetch(url, { redirect: "manual" });
  const callback = authorize.headers.get("location") ?? "";
  const answer = await fetch(callback);
  return { status: answer.status, page: await answer.text(), callback };
}

/** The confirmation form's fields on a callback's page. */
export function confirmationOf(page: string): { action: string; confirmation: string } {
  const action = /<form method="post" action="([^"]*)"/.exec(page)?.[1];
  const confirmation = /name="confirmation" value="([^"]*)"/.exec(page)?.[1];
  if (action === undefined || confirmation === undefined) throw new Error(`no confirmation form on the page: ${page}`);
  return { action, confirmation };
}

/** The page's form posted as a browser posts it (same origin), with `answer`, or other `headers`. */
export function postConfirmation({
  callback,
  page,
  answer,
  headers,
}: {
  callback: string;
  page: string;
  answer: string;
  headers?: Record<string, string>;
}): Promise<Response> {
  const { action, confirmation } = confirmationOf(page);
  const target = new URL(action, callback);
  return fetch(target, {
    method: "POST",
    headers: headers ?? {
      "content-type": "application/x-www-form-urlencoded",
      origin: target.origin,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ confirmation, answer }).toString(),
  });
}
