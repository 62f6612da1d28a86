// OAuth 2.0 client credentials against a real token endpoint on 127.0.0.1 that counts its requests: the request
// as RFC 6749 asks for it, caching until shortly before expiry, one shared request under concurrency,
// invalidation, error messages without the secret, and https enforcement for the token URL.

import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ClientCredentials,
  REFRESH_MARGIN_MS,
  TokenError,
  TokenProvider,
} from "../../src/runtime/credentials/oauth.js";
import { json, type Reply, Upstream } from "../support/upstream.js";

const SECRET = "canary-s3cret/with+chars=";
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
afterEach(() => upstream.reset());

function client(overrides: Partial<ClientCredentials> = {}): ClientCredentials {
  return {
    tokenUrl: `${upstream.url}/oauth/token`,
    clientId: "my client",
    clientSecret: SECRET,
    scopes: ["pets:read", "pets:write"],
    ...overrides,
  };
}

/** Issues tok-1, tok-2… with the given lifetime, after an optional delay. */
function issuer({
  expiresIn,
  delayMs = 0,
  extra = {},
}: {
  expiresIn?: number | string;
  delayMs?: number;
  extra?: Record<string, unknown>;
} = {}): Reply {
  let issued = 0;
  return async (context) => {
    issued++;
    const n = issued;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    await json({
      access_token: `tok-${n}`,
      token_type: "bearer",
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      ...extra,
    })(context);
  };
}

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

async function failure(promise: Promise<unknown>): Promise<TokenError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TokenError) return error;
    throw error;
  }
  throw new Error("expected a TokenError");
}

describe("the token request", () => {
  it("posts grant_type=client_credentials and the scopes, with HTTP basic of the form-encoded id and secret", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600 }));
    const tokens = new TokenProvider({ dispatcher });
    const token = await tokens.token(client());
    expect(token.value).toBe("tok-1");
    expect(token.tokenType).toBe("bearer");
    const request = upstream.only();
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request.body.toString()))).toEqual({
      grant_type: "client_credentials",
      scope: "pets:read pets:write",
    });
    const basic = Buffer.from(String(request.headers.authorization).replace(/^Basic /, ""), "base64").toString();
    expect(basic).toBe("my+client:canary-s3cret%2Fwith%2Bchars%3D");
  });

  it("sends the id and secret in the body with client_secret_post, and no scope when none is asked for", async () => {
    upstream.on("POST", "/oauth/token", issuer());
    const tokens = new TokenProvider({ dispatcher, method: "client_secret_post" });
    await tokens.token(client({ scopes: [] }));
    const request = upstream.only();
    expect(request.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(request.body.toString()))).toEqual({
      grant_type: "client_credentials",
      client_id: "my client",
      client_secret: SECRET,
    });
  });

  it("accepts a string expires_in, a missing token_type and a form-encoded answer", async () => {
    upstream.on("POST", "/oauth/token", ({ res }) => {
      res
        .writeHead(200, { "content-type": "application/x-www-form-urlencoded" })
        .end("access_token=form-tok&expires_in=120");
    });
    const c = clock();
    const token = await new TokenProvider({ dispatcher, now: c.now }).token(client());
    expect(token).toEqual({
      value: "form-tok",
      tokenType: "Bearer",
      expiresAt: c.now() + 120_000,
      refreshAt: c.now() + 120_000 - 12_000,
    });
  });
});

describe("caching", () => {
  it("reuses the token until shortly before it expires (60 s early, or 10% of its lifetime when that is less)", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600 }));
    const c = clock();
    const tokens = new TokenProvider({ dispatcher, now: c.now });
    expect((await tokens.token(client())).value).toBe("tok-1");
    c.advance(3600_000 - REFRESH_MARGIN_MS - 1);
    expect((await tokens.token(client())).value).toBe("tok-1");
    expect(upstream.requests).toHaveLength(1);
    c.advance(1);
    expect((await tokens.token(client())).value).toBe("tok-2");
    expect((await tokens.token(client())).value).toBe("tok-2");
    expect(upstream.requests).toHaveLength(2);
  });

  it("refreshes a short-lived token 10% early", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 100 }));
    const c = clock();
    const tokens = new TokenProvider({ dispatcher, now: c.now });
    await tokens.token(client());
    c.advance(89_999);
    expect((await tokens.token(client())).value).toBe("tok-1");
    c.advance(1);
    expect((await tokens.token(client())).value).toBe("tok-2");
  });

  it("keeps a token without expires_in for the default lifetime (5 minutes unless set)", async () => {
    upstream.on("POST", "/oauth/token", issuer());
    const c = clock();
    const tokens = new TokenProvider({ dispatcher, now: c.now });
    await tokens.token(client());
    c.advance(5 * 60_000 - 1);
    expect((await tokens.token(client())).value).toBe("tok-1");
    c.advance(1);
    expect((await tokens.token(client())).value).toBe("tok-2");
    const short = new TokenProvider({ dispatcher, now: c.now, defaultLifetimeMs: 1000 });
    await short.token(client());
    c.advance(1000);
    expect((await short.token(client())).value).toBe("tok-4");
  });

  it("does not cache a token that expires at once", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 0 }));
    const tokens = new TokenProvider({ dispatcher });
    expect((await tokens.token(client())).value).toBe("tok-1");
    expect((await tokens.token(client())).value).toBe("tok-2");
  });

  it("keeps one token per token URL, client and scope set (scope order does not matter)", async () => {
    upstream.on("POST", /^\/oauth\//, issuer({ expiresIn: 3600 }));
    const tokens = new TokenProvider({ dispatcher });
    const a = await tokens.token(client());
    expect(await tokens.token(client({ scopes: ["pets:write", "pets:read"] }))).toBe(a);
    const values = [
      (await tokens.token(client({ scopes: ["pets:read"] }))).value,
      (await tokens.token(client({ clientId: "other" }))).value,
      (await tokens.token(client({ clientSecret: "another-secret" }))).value,
      (await tokens.token(client({ tokenUrl: `${upstream.url}/oauth/other` }))).value,
    ];
    expect(new Set([a.value, ...values]).size).toBe(5);
    expect(upstream.requests).toHaveLength(5);
  });
});

describe("concurrency", () => {
  it("serves 50 concurrent calls with exactly one token request", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600, delayMs: 100 }));
    const tokens = new TokenProvider({ dispatcher });
    const results = await Promise.all(Array.from({ length: 50 }, () => tokens.token(client())));
    expect(new Set(results.map((t) => t.value))).toEqual(new Set(["tok-1"]));
    expect(upstream.requests).toHaveLength(1);
  });

  it("shares a failure among the waiters, and tries again on the next call", async () => {
    upstream.on(
      "POST",
      "/oauth/token",
      json({ error: "temporarily_unavailable" }, { status: 503 }),
      issuer({ expiresIn: 3600 }),
    );
    const tokens = new TokenProvider({ dispatcher });
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => tokens.token(client())));
    expect(settled.every((s) => s.status === "rejected")).toBe(true);
    expect((await tokens.token(client())).value).toBe("tok-1");
  });

  it("lets a cancelled caller stop waiting without stopping the shared request", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600, delayMs: 100 }));
    const tokens = new TokenProvider({ dispatcher });
    const controller = new AbortController();
    const cancelled = tokens.token(client(), { signal: controller.signal });
    const other = tokens.token(client());
    controller.abort();
    expect((await failure(cancelled)).kind).toBe("cancelled");
    expect((await other).value).toBe("tok-1");
    expect(upstream.requests).toHaveLength(1);
  });
});

describe("invalidation", () => {
  it("drops the refused token, so the next call fetches a new one", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600 }));
    const tokens = new TokenProvider({ dispatcher });
    const first = await tokens.token(client());
    tokens.invalidate(first.value);
    expect((await tokens.token(client())).value).toBe("tok-2");
    expect(upstream.requests).toHaveLength(2);
  });

  it("keeps a newer token when a late 401 names an older one", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600 }));
    const tokens = new TokenProvider({ dispatcher });
    const first = await tokens.token(client());
    tokens.invalidate(first.value);
    await tokens.token(client());
    tokens.invalidate(first.value);
    expect((await tokens.token(client())).value).toBe("tok-2");
    expect(upstream.requests).toHaveLength(2);
  });

  it("many 401s on one token lead to one new token request", async () => {
    upstream.on("POST", "/oauth/token", issuer({ expiresIn: 3600, delayMs: 50 }));
    const tokens = new TokenProvider({ dispatcher });
    const first = await tokens.token(client());
    const retries = await Promise.all(
      Array.from({ length: 20 }, async () => {
        tokens.invalidate(first.value);
        return (await tokens.token(client())).value;
      }),
    );
    expect(new Set(retries)).toEqual(new Set(["tok-2"]));
    expect(upstream.requests).toHaveLength(2);
  });
});

describe("errors", () => {
  const cases: Array<{ name: string; reply: Reply; kind: TokenError["kind"]; message: RegExp; status?: number }> = [
    {
      name: "a 401 with an OAuth error",
      reply: json(
        { error: "invalid_client", error_description: `Client authentication failed for secret ${SECRET}` },
        { status: 401 },
      ),
      kind: "http",
      status: 401,
      message:
        /HTTP 401 \(invalid_client: Client authentication failed for secret \*\*\*\*\); check the client id and secret$/,
    },
    {
      name: "a 400 invalid_scope",
      reply: json({ error: "invalid_scope" }, { status: 400 }),
      kind: "http",
      status: 400,
      message: /HTTP 400 \(invalid_scope\); check the scopes$/,
    },
    {
      name: "a 500 with HTML",
      reply: ({ res }) => void res.writeHead(500, { "content-type": "text/html" }).end("<h1>oops</h1>"),
      kind: "http",
      status: 500,
      message: /HTTP 500$/,
    },
    {
      name: "a 200 that is not JSON",
      reply: ({ res }) => void res.writeHead(200).end("hello"),
      kind: "response",
      status: 200,
      message: /is not a JSON object/,
    },
    {
      name: "a 200 without access_token",
      reply: json({ token_type: "bearer" }),
      kind: "response",
      status: 200,
      message: /has no access_token/,
    },
    {
      name: "another token type",
      reply: json({ access_token: "x", token_type: "mac" }),
      kind: "response",
      status: 200,
      message: /token_type 'mac' is not supported/,
    },
  ];

  it.each(cases)(
    "$name: names the token URL and the status, never the secret",
    async ({ reply, kind, message, status }) => {
      upstream.on("POST", "/oauth/token", reply);
      for (const method of ["client_secret_basic", "client_secret_post"] as const) {
        const error = await failure(new TokenProvider({ dispatcher, method }).token(client()));
        expect(error.kind).toBe(kind);
        expect(error.status).toBe(status);
        expect(error.code).toBe("E_OAUTH_TOKEN");
        expect(error.message).toContain(`OAuth 2.0 token request to ${upstream.url}/oauth/token`);
        expect(error.message).toMatch(message);
        expect(error.message).not.toContain(SECRET);
        expect(error.message).not.toContain(encodeURIComponent(SECRET));
      }
    },
  );

  it("reports a token endpoint that cannot be reached", async () => {
    const closed = await Upstream.start();
    const url = `${closed.url}/token`;
    await closed.close();
    const error = await failure(new TokenProvider({ dispatcher }).token(client({ tokenUrl: url })));
    expect(error.kind).toBe("network");
    expect(error.message).toContain(`OAuth 2.0 token request to ${url} failed`);
    expect(error.message).not.toContain(SECRET);
  });

  it("times out", async () => {
    upstream.on("POST", "/oauth/token", issuer({ delayMs: 2000 }));
    const error = await failure(new TokenProvider({ dispatcher, timeoutMs: 100 }).token(client()));
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("within 100 ms");
  });
});

describe("https enforcement", () => {
  it.each(["http://auth.example.com/token", "http://10.0.0.1/token", "http://[fe80::1]/token"])(
    "refuses %s without sending anything",
    async (tokenUrl) => {
      const error = await failure(new TokenProvider({ dispatcher }).token(client({ tokenUrl })));
      expect(error.kind).toBe("insecure");
      expect(error.message).toContain(`OAuth 2.0 token request to ${tokenUrl} refused`);
      expect(error.message).toContain("--allow-insecure-http");
      expect(error.message).not.toContain(SECRET);
    },
  );

  it("refuses URLs that are not http(s)", async () => {
    for (const tokenUrl of ["ftp://auth.example.com/token", "not a url"]) {
      expect((await failure(new TokenProvider({ dispatcher }).token(client({ tokenUrl })))).kind).toBe("invalid");
    }
  });

  it("accepts http to loopback, and to other hosts only with allowInsecureHttp", async () => {
    upstream.on("POST", "/oauth/token", issuer());
    await new TokenProvider({ dispatcher }).token(
      client({ tokenUrl: `http://localhost:${upstream.port}/oauth/token` }),
    );
    expect(upstream.requests).toHaveLength(1);
    // With the opt-out the request is attempted: answered here by a dispatcher that refuses every connection.
    const refusing = new Agent({ connect: (_options, callback) => callback(new Error("no network in tests"), null) });
    const error = await failure(
      new TokenProvider({ dispatcher: refusing, allowInsecureHttp: true }).token(
        client({ tokenUrl: "http://auth.example.com/token" }),
      ),
    );
    expect(error.kind).toBe("network");
    await refusing.close();
  });
});
