// Credential application (every kind, alternatives, the secrets reported, OAuth 2.0 tokens and their
// invalidation) and the startup check for required credentials that are not configured.

import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Catalog, CredentialScheme, SecurityRequirement, Tool } from "../../src/catalog/types.js";
import {
  applyCredentials,
  describeMissingCredentials,
  type Environment,
  missingCredentials,
} from "../../src/runtime/credentials/credentials.js";
import {
  type AccessToken,
  type ClientCredentials,
  TokenError,
  TokenProvider,
  type TokenSource,
} from "../../src/runtime/credentials/oauth.js";
import type { PreparedRequest } from "../../src/runtime/types.js";
import { json, Upstream } from "../support/upstream.js";

const REQUEST: PreparedRequest = {
  method: "GET",
  origin: "https://api.example.com",
  path: "/v1/pets?limit=2",
  headers: { accept: "application/json" },
};

const SCHEMES: Record<string, CredentialScheme> = {
  header_key: {
    name: "header_key",
    type: "apiKey",
    in: "header",
    parameter: "X-API-Key",
    value: { env: "API_KEY_HEADER_KEY" },
  },
  query_key: {
    name: "query_key",
    type: "apiKey",
    in: "query",
    parameter: "api key",
    value: { env: "API_KEY_QUERY_KEY" },
  },
  cookie_key: {
    name: "cookie_key",
    type: "apiKey",
    in: "cookie",
    parameter: "session",
    value: { env: "API_KEY_COOKIE_KEY" },
  },
  bearer: { name: "bearer", type: "bearer", token: { env: "BEARER_TOKEN_BEARER" } },
  basic: { name: "basic", type: "basic", username: { value: "alice" }, password: { env: "BASIC_PASSWORD_BASIC" } },
  oauth: {
    name: "oauth",
    type: "oauth2",
    tokenUrl: "https://auth.example.com/token",
    scopes: ["default:scope"],
    clientId: { env: "OAUTH_CLIENT_ID_OAUTH" },
    clientSecret: { env: "OAUTH_CLIENT_SECRET_OAUTH" },
  },
  mtls: { name: "mtls", type: "unsupported", reason: "mutual TLS client certificates are not supported" },
};

const ENV: Environment = {
  API_KEY_HEADER_KEY: "hk-canary-1",
  API_KEY_QUERY_KEY: "qk canary/2",
  API_KEY_COOKIE_KEY: "ck;canary=3",
  BEARER_TOKEN_BEARER: "bt-canary-4",
  BASIC_PASSWORD_BASIC: "pw-canary-5",
  OAUTH_CLIENT_ID_OAUTH: "client-6",
  OAUTH_CLIENT_SECRET_OAUTH: "cs-canary-7",
};

/** A token source that records what it was asked for and hands out at-1, at-2… (one per call). */
function fakeTokens(): TokenSource & { asked: ClientCredentials[]; invalidated: string[] } {
  let issued = 0;
  const asked: ClientCredentials[] = [];
  const invalidated: string[] = [];
  return {
    asked,
    invalidated,
    async token(credentials): Promise<AccessToken> {
      asked.push(credentials);
      issued++;
      return { value: `at-${issued}`, tokenType: "Bearer", refreshAt: Number.MAX_SAFE_INTEGER };
    },
    invalidate(token) {
      invalidated.push(token);
    },
  };
}

function only(...schemes: Array<string | [string, string[]]>): SecurityRequirement[] {
  return [
    { schemes: schemes.map((s) => (typeof s === "string" ? { id: s, scopes: [] } : { id: s[0], scopes: s[1] })) },
  ];
}

async function apply(security: SecurityRequirement[], env: Environment = ENV, tokens: TokenSource = fakeTokens()) {
  return applyCredentials({ request: REQUEST, security, credentials: SCHEMES, env, tokens });
}

describe("applying credentials", () => {
  it("puts an API key in a header", async () => {
    const applied = await apply(only("header_key"));
    expect(applied.request).toEqual({
      ...REQUEST,
      headers: { accept: "application/json", "x-api-key": "hk-canary-1" },
    });
    expect(applied.secrets).toEqual(["hk-canary-1"]);
    expect(applied.invalidate).toBeUndefined();
  });

  it("appends an API key to the query, percent-encoded", async () => {
    const applied = await apply(only("query_key"));
    expect(applied.request.path).toBe("/v1/pets?limit=2&api%20key=qk%20canary%2F2");
    expect(applied.secrets).toEqual(["qk canary/2"]);
  });

  it("adds an API key cookie beside an existing one", async () => {
    const applied = await applyCredentials({
      request: { ...REQUEST, headers: { cookie: "theme=dark" } },
      security: only("cookie_key"),
      credentials: SCHEMES,
      env: ENV,
    });
    expect(applied.request.headers.cookie).toBe("theme=dark; session=ck%3Bcanary%3D3");
  });

  it("sends a bearer token", async () => {
    const applied = await apply(only("bearer"));
    expect(applied.request.headers.authorization).toBe("Bearer bt-canary-4");
    expect(applied.secrets).toEqual(["bt-canary-4"]);
  });

  it("sends HTTP basic and reports both the password and the pair", async () => {
    const applied = await apply(only("basic"));
    expect(applied.request.headers.authorization).toBe(`Basic ${Buffer.from("alice:pw-canary-5").toString("base64")}`);
    expect(applied.secrets).toEqual(["pw-canary-5", "alice:pw-canary-5"]);
  });

  it("sends an OAuth 2.0 access token for the operation's scopes, and reports token and client secret as secrets", async () => {
    const tokens = fakeTokens();
    const applied = await apply(only(["oauth", ["pets:read"]]), ENV, tokens);
    expect(applied.request.headers.authorization).toBe("Bearer at-1");
    expect(applied.secrets).toEqual(["at-1", "cs-canary-7"]);
    expect(tokens.asked).toEqual([
      {
        tokenUrl: "https://auth.example.com/token",
        clientId: "client-6",
        clientSecret: "cs-canary-7",
        scopes: ["pets:read"],
      },
    ]);
    applied.invalidate?.();
    expect(tokens.invalidated).toEqual(["at-1"]);
  });

  it("asks for the scheme's scopes when the operation names none", async () => {
    const tokens = fakeTokens();
    await apply(only("oauth"), ENV, tokens);
    expect(tokens.asked[0]?.scopes).toEqual(["default:scope"]);
  });

  it("applies every scheme of an alternative together", async () => {
    const tokens = fakeTokens();
    const applied = await apply(only("header_key", "query_key", "oauth"), ENV, tokens);
    expect(applied.request.headers).toEqual({
      accept: "application/json",
      "x-api-key": "hk-canary-1",
      authorization: "Bearer at-1",
    });
    expect(applied.request.path).toBe("/v1/pets?limit=2&api%20key=qk%20canary%2F2");
    expect(applied.secrets).toEqual(["hk-canary-1", "qk canary/2", "at-1", "cs-canary-7"]);
  });

  it("uses the first alternative that is fully configured", async () => {
    const security: SecurityRequirement[] = [
      ...only("mtls"),
      ...only("bearer", "header_key"),
      ...only("basic"),
      ...only("query_key"),
    ];
    const applied = await apply(security, { ...ENV, API_KEY_HEADER_KEY: "" });
    expect(applied.request.headers.authorization).toMatch(/^Basic /);
    expect(applied.request.headers["x-api-key"]).toBeUndefined();
    expect(applied.request.path).toBe(REQUEST.path);
  });

  it("skips an OAuth 2.0 alternative without client id or secret, asking for no token", async () => {
    const tokens = fakeTokens();
    const applied = await apply(
      [...only("oauth"), ...only("bearer")],
      { ...ENV, OAUTH_CLIENT_SECRET_OAUTH: undefined },
      tokens,
    );
    expect(applied.request.headers.authorization).toBe("Bearer bt-canary-4");
    expect(tokens.asked).toEqual([]);
  });

  it("leaves the request alone when nothing applies (none configured, none needed, unknown or unsupported schemes)", async () => {
    for (const security of [[], only("bearer"), only("mtls"), only("nope"), only("__proto__"), [{ schemes: [] }]]) {
      const applied = await apply(security, {});
      expect(applied).toEqual({ request: REQUEST, secrets: [] });
    }
  });

  it("does not change the request it was given", async () => {
    const request = structuredClone(REQUEST);
    await applyCredentials({ request, security: only("header_key", "query_key"), credentials: SCHEMES, env: ENV });
    expect(request).toEqual(REQUEST);
  });

  it("passes a token failure on as a TokenError", async () => {
    const failing: TokenSource = {
      token: async () => {
        throw new TokenError("http", "OAuth 2.0 token request to https://auth.example.com/token failed: HTTP 401", 401);
      },
      invalidate: () => {},
    };
    await expect(apply(only("oauth"), ENV, failing)).rejects.toBeInstanceOf(TokenError);
  });
});

describe("with a real token endpoint", () => {
  let upstream: Upstream;
  let dispatcher: Agent;
  beforeAll(async () => {
    upstream = await Upstream.start();
    dispatcher = new Agent();
  });
  afterAll(async () => {
    await dispatcher.close();
    await upstream.close();
  });

  it("shares one token among concurrent calls, and fetches a new one after invalidate", async () => {
    let issued = 0;
    upstream.on("POST", "/token", (context) =>
      json({ access_token: `real-${++issued}`, token_type: "Bearer", expires_in: 3600 })(context),
    );
    const credentials = { oauth: { ...SCHEMES.oauth!, tokenUrl: `${upstream.url}/token` } as CredentialScheme };
    const tokens = new TokenProvider({ dispatcher });
    const calls = await Promise.all(
      Array.from({ length: 20 }, () =>
        applyCredentials({ request: REQUEST, security: only("oauth"), credentials, env: ENV, tokens }),
      ),
    );
    expect(new Set(calls.map((c) => c.request.headers.authorization))).toEqual(new Set(["Bearer real-1"]));
    expect(upstream.requests).toHaveLength(1);
    calls[0]!.invalidate!();
    const retried = await applyCredentials({
      request: REQUEST,
      security: only("oauth"),
      credentials,
      env: ENV,
      tokens,
    });
    expect(retried.request.headers.authorization).toBe("Bearer real-2");
    expect(retried.secrets).toContain("real-2");
    expect(upstream.requests).toHaveLength(2);
  });
});

function tool(name: string, security: SecurityRequirement[]): Tool {
  return {
    name,
    title: name,
    description: "",
    inputSchema: { type: "object" },
    annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    effect: "read",
    operation: {
      method: "GET",
      serverUrl: "https://api.example.com",
      path: `/${name}`,
      parameters: { path: [], query: [], header: [], cookie: [] },
      accept: [],
      security,
    },
    source: "",
    origin: { file: "spec.yaml", pointer: `/paths/~1${name}/get`, tags: [] },
  };
}

function catalog(tools: Tool[]): Pick<Catalog, "tools" | "credentials"> {
  return { tools, credentials: SCHEMES };
}

describe("missing credentials", () => {
  it("names nothing when every required credential is configured, or none is required", () => {
    const tools = [
      tool("a", only("header_key")),
      tool("b", only("oauth")),
      tool("c", []),
      tool("d", [...only("bearer"), { schemes: [] }]),
    ];
    expect(missingCredentials(catalog(tools), ENV)).toEqual([]);
    // An empty alternative means the call can go without credentials.
    expect(missingCredentials(catalog([tool("d", [...only("bearer"), { schemes: [] }]), tool("c", [])]), {})).toEqual(
      [],
    );
  });

  it("names the unset variables of each scheme a tool requires, grouping tools with the same requirement", () => {
    const tools = [
      tool("listPets", only("header_key")),
      tool("getPet", only("header_key")),
      tool("token", only("oauth")),
    ];
    expect(missingCredentials(catalog(tools), { OAUTH_CLIENT_ID_OAUTH: "id" })).toEqual([
      {
        tools: ["listPets", "getPet"],
        alternatives: [[{ scheme: "header_key", name: "header_key", variables: ["API_KEY_HEADER_KEY"] }]],
      },
      {
        tools: ["token"],
        alternatives: [[{ scheme: "oauth", name: "oauth", variables: ["OAUTH_CLIENT_SECRET_OAUTH"] }]],
      },
    ]);
  });

  it("treats an empty variable as unset", () => {
    expect(missingCredentials(catalog([tool("a", only("bearer"))]), { BEARER_TOKEN_BEARER: "" })).toEqual([
      { tools: ["a"], alternatives: [[{ scheme: "bearer", name: "bearer", variables: ["BEARER_TOKEN_BEARER"] }]] },
    ]);
  });

  it("is satisfied by any one configured alternative, and otherwise lists what each still lacks", () => {
    const security = [...only("header_key", "basic"), ...only("oauth")];
    expect(
      missingCredentials(catalog([tool("a", security)]), { API_KEY_HEADER_KEY: "k", BASIC_PASSWORD_BASIC: "p" }),
    ).toEqual([]);
    const missing = missingCredentials(catalog([tool("a", security)]), { API_KEY_HEADER_KEY: "k" });
    expect(missing).toEqual([
      {
        tools: ["a"],
        alternatives: [
          [{ scheme: "basic", name: "basic", variables: ["BASIC_PASSWORD_BASIC"] }],
          [{ scheme: "oauth", name: "oauth", variables: ["OAUTH_CLIENT_ID_OAUTH", "OAUTH_CLIENT_SECRET_OAUTH"] }],
        ],
      },
    ]);
    expect(describeMissingCredentials(missing)).toBe(
      "a: set BASIC_PASSWORD_BASIC (security scheme 'basic'), or set OAUTH_CLIENT_ID_OAUTH and OAUTH_CLIENT_SECRET_OAUTH (security scheme 'oauth')",
    );
  });

  it("leaves out alternatives that can never apply, and tools with nothing else (the loader warned about them)", () => {
    expect(missingCredentials(catalog([tool("a", [...only("mtls"), ...only("nope")])]), {})).toEqual([]);
    expect(missingCredentials(catalog([tool("a", [...only("mtls", "bearer"), ...only("query_key")])]), {})).toEqual([
      { tools: ["a"], alternatives: [[{ scheme: "query_key", name: "query_key", variables: ["API_KEY_QUERY_KEY"] }]] },
    ]);
  });

  it("reports a literal value that is empty without naming a variable", () => {
    const credentials: Record<string, CredentialScheme> = {
      b: { name: "b", type: "basic", username: { value: "" }, password: { env: "PW" } },
    };
    const missing = missingCredentials({ tools: [tool("a", only("b"))], credentials }, {});
    expect(missing).toEqual([{ tools: ["a"], alternatives: [[{ scheme: "b", name: "b", variables: ["PW"] }]] }]);
    const literalOnly = missingCredentials({ tools: [tool("a", only("b"))], credentials }, { PW: "x" });
    expect(describeMissingCredentials(literalOnly)).toBe("a: give security scheme 'b' a non-empty value");
  });

  it("shortens long tool lists in the message", () => {
    const tools = Array.from({ length: 8 }, (_, i) => tool(`t${i}`, only("bearer", "header_key")));
    expect(describeMissingCredentials(missingCredentials(catalog(tools), {}))).toBe(
      "t0, t1, t2, t3, t4 and 3 more tools: set BEARER_TOKEN_BEARER (security scheme 'bearer') and set API_KEY_HEADER_KEY (security scheme 'header_key')",
    );
  });
});
