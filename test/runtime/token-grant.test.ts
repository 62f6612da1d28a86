// A user's token request as GitHub's OAuth apps need it: the client secret in the form (GitHub does not read HTTP
// basic at login/oauth/access_token), and an answer of 200 holding `error` taken as the refusal it is, naming
// GitHub's code; a bad code or refresh token means signing in again, a wrong client secret does not.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GrantError, requestTokens } from "../../src/runtime/sign-in/token-grant.js";
import { type Reply, Upstream } from "../support/upstream.js";

const SECRET = "github-client-secret-canary-9c1";
let github: Upstream;
beforeAll(async () => {
  github = await Upstream.start();
});
afterAll(() => github.close());

/** GitHub's answer when `form` carries this client's id and secret, else its incorrect_client_credentials. */
function answer(good: object): Reply {
  return ({ res, recorded }) => {
    const form = new URLSearchParams(recorded.body.toString("utf8"));
    const known = form.get("client_id") === "Ov23li" && form.get("client_secret") === SECRET;
    const body = known
      ? good
      : {
          error: "incorrect_client_credentials",
          error_description: "The client_id and/or client_secret passed are incorrect.",
        };
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
  };
}

const client = {
  clientId: "Ov23li",
  clientSecret: SECRET,
  authMethod: "client_secret_post" as const,
  allowInsecureHttp: true,
};
const code = { grant_type: "authorization_code", code: "c0de", code_verifier: "v".repeat(43) };

describe("token requests to a GitHub-style provider", () => {
  it("sends the client secret in the form, not in HTTP basic, and reads GitHub's answer", async () => {
    github.reset();
    github.on(
      "POST",
      "/login/oauth/access_token",
      answer({ access_token: "gho_user", token_type: "bearer", scope: "repo" }),
    );
    const tokens = await requestTokens({ url: `${github.url}/login/oauth/access_token`, form: code, client, now: 1 });
    expect(tokens).toEqual({ accessToken: "gho_user", obtainedAt: 1, scope: "repo" });
    const sent = github.only();
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers.accept).toBe("application/json");
  });

  it.each([
    [
      "an expired code",
      { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." },
      true,
    ],
    [
      "a bad refresh token",
      { error: "bad_refresh_token", error_description: "The refresh token passed is incorrect or expired." },
      true,
    ],
  ])("takes a 200 answer holding an error as a refusal: %s means signing in again", async (_, body, refused) => {
    github.reset();
    github.on("POST", "/login/oauth/access_token", answer(body));
    const url = `${github.url}/login/oauth/access_token`;
    const error = await requestTokens({ url, form: code, client }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantError);
    expect((error as GrantError).refused).toBe(refused);
    expect((error as GrantError).message).toBe(
      `the token request to ${url} was refused: HTTP 200 (${body.error}: ${body.error_description})`,
    );
  });

  it("says a wrong client secret is wrong, without taking it for a bad grant or showing the secret", async () => {
    github.reset();
    github.on("POST", "/login/oauth/access_token", answer({ access_token: "gho_user" }));
    const url = `${github.url}/login/oauth/access_token`;
    const error = await requestTokens({
      url,
      form: code,
      client: { ...client, authMethod: "client_secret_basic" },
    }).catch((e: unknown) => e);
    expect((error as GrantError).refused).toBe(false);
    expect((error as GrantError).message).toMatch(/HTTP 200 \(incorrect_client_credentials: /);
    expect((error as GrantError).message).not.toContain(SECRET);
  });
});
