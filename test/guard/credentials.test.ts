// Credentials and HTTPS enforcement, end to end: OAuth 2.0 client credentials against a loopback token endpoint
// (one token request for many concurrent calls, one refresh and one retry on 401, renewal before expiry), a missing
// credential stopping `serve` with the variable named, credentials from a settings file reaching the upstream, and
// plain-http upstreams, token URLs and spec URLs refused unless --allow-insecure-http, which warns.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setUpEngine } from "../../src/app/setup.js";
import { runCli } from "../support/cli.js";
import { example } from "../support/fixtures.js";
import {
  BASIC_USER,
  CANARY,
  CLIENT_ID,
  canaryEnv,
  connectProvider,
  echo,
  formEncode,
  guardSpec,
  type InProcess,
  serveOverStdio,
  spawnCli,
  type TokenEndpoint,
  tempDir,
  textOf,
  tokenEndpoint,
  waitFor,
  writeFile,
} from "../support/guard.js";
import { Upstream } from "../support/upstream.js";

let api: Upstream;
let login: Upstream;
let temp: ReturnType<typeof tempDir>;
const open: InProcess[] = [];

beforeAll(async () => {
  [api, login] = await Promise.all([Upstream.start(), Upstream.start()]);
  temp = tempDir();
});
afterAll(async () => {
  await Promise.all([api.close(), login.close()]);
  temp.remove();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  api.reset();
  login.reset();
});

type Result = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

/** The guard API with its token URL on the login server, set up as `serve` would, behind an in-process client. */
async function connect(token: TokenEndpoint, env: Record<string, string> = canaryEnv()): Promise<InProcess> {
  const spec = writeFile(
    temp.dir,
    `oauth-${login.port}.openapi.json`,
    guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: token.url }),
  );
  const { engine } = await setUpEngine(spec, { env, log: () => {} });
  const connected = await connectProvider(engine);
  open.push(connected);
  return connected;
}

const bearerOf = (path: string): Array<string | undefined> => api.to(path).map((r) => r.headers.authorization);

describe("OAuth 2.0 client credentials, end to end", () => {
  it("20 concurrent calls share one token request, which carries the client id, secret and scopes", async () => {
    const token = tokenEndpoint(login, { delayMs: 150 });
    api.on("GET", "/v1/oauth/ok", echo());
    const c = await connect(token);
    const results = await Promise.all(
      Array.from(
        { length: 20 },
        () => c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } }) as Promise<Result>,
      ),
    );
    for (const result of results) expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(token.requests).toHaveLength(1);
    expect(token.requests[0]!.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${formEncode(CANARY)}`).toString("base64")}`,
    );
    expect(Object.fromEntries(new URLSearchParams(token.requests[0]!.body))).toEqual({
      grant_type: "client_credentials",
      scope: "pets:read pets:write",
    });
    expect(bearerOf("/v1/oauth/ok")).toEqual(Array(20).fill(`Bearer ${token.issued[0]}`));
    // Cached: later calls need no new token.
    await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } });
    expect(token.requests).toHaveLength(1);
  });

  it("a 401 from the API: exactly one new token and one retry, which succeeds", async () => {
    const token = tokenEndpoint(login);
    api.on("GET", "/v1/oauth/ok", echo());
    let refused = false;
    api.on("GET", "/v1/oauth/revoked", (context) => {
      // The first token is refused once (revoked upstream); any other is fine.
      if (!refused && context.recorded.headers.authorization === `Bearer ${token.issued[0]}`) {
        refused = true;
        context.res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
        return;
      }
      return echo()(context);
    });
    const c = await connect(token);
    expect(
      ((await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } })) as Result).isError ?? false,
    ).toBe(false);
    const result = (await c.client.callTool({ name: "get_oauth", arguments: { scenario: "revoked" } })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(token.requests).toHaveLength(2);
    expect(bearerOf("/v1/oauth/revoked")).toEqual([`Bearer ${token.issued[0]}`, `Bearer ${token.issued[1]}`]);
    // The new token is the one used from now on.
    await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } });
    expect(bearerOf("/v1/oauth/ok").at(-1)).toBe(`Bearer ${token.issued[1]}`);
    expect(token.requests).toHaveLength(2);
  });

  it("a 401 that persists: still only one refresh and one retry, then an error result", async () => {
    const token = tokenEndpoint(login);
    api.on("GET", "/v1/oauth/e401", echo({ status: 401 }));
    const c = await connect(token);
    const result = (await c.client.callTool({ name: "get_oauth", arguments: { scenario: "e401" } })) as Result;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("401 Unauthorized");
    expect(token.requests).toHaveLength(2);
    expect(api.to("/v1/oauth/e401")).toHaveLength(2);
    expect(textOf(result)).not.toContain(token.issued[1]!);
  });

  it("a token is renewed shortly before it expires", async () => {
    const token = tokenEndpoint(login, { expiresIn: 0.4 });
    api.on("GET", "/v1/oauth/ok", echo());
    const c = await connect(token);
    await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } });
    await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } });
    expect(token.requests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 450));
    await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } });
    expect(token.requests).toHaveLength(2);
    expect(bearerOf("/v1/oauth/ok")).toEqual([
      `Bearer ${token.issued[0]}`,
      `Bearer ${token.issued[0]}`,
      `Bearer ${token.issued[1]}`,
    ]);
  });

  it("a token endpoint that refuses the client: an error result naming the token URL, never the secret; nothing sent to the API", async () => {
    const token = tokenEndpoint(login);
    const wrong = "wrong-secret-8c1d+/=";
    const c = await connect(token, { ...canaryEnv(), OAUTH_CLIENT_SECRET_OAUTH: wrong });
    const result = (await c.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } })) as Result;
    const text = textOf(result);
    expect(result.isError).toBe(true);
    expect(text).toContain(token.url);
    expect(text).toContain("HTTP 401");
    expect(text).toContain("check the client id and secret");
    for (const form of [
      wrong,
      encodeURIComponent(wrong),
      Buffer.from(`${CLIENT_ID}:${formEncode(wrong)}`).toString("base64"),
    ])
      expect(text).not.toContain(form);
    expect(api.requests).toEqual([]);
  });
});

describe("missing credentials", () => {
  const spec = (): string =>
    writeFile(
      temp.dir,
      "missing.openapi.json",
      guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${login.url}/oauth/token` }),
    );

  it("--require-credentials stops `serve` with exit code 1 and a message naming each variable to set", async () => {
    const none = await runCli(["serve", spec(), "--require-credentials"]);
    expect(none.code).toBe(1);
    for (const variable of [
      "API_KEY_HEADERKEY",
      "API_KEY_QUERYKEY",
      "BEARER_TOKEN_BEARERAUTH",
      "BASIC_USERNAME_BASICAUTH",
      "BASIC_PASSWORD_BASICAUTH",
      "OAUTH_CLIENT_ID_OAUTH",
      "OAUTH_CLIENT_SECRET_OAUTH",
    ]) {
      expect(none.stderr).toContain(variable);
    }
    expect(none.stderr).toContain("credentials are missing");
    expect(none.stderr).not.toMatch(/^\s+at /m);

    // Only what is missing is named.
    const { BASIC_PASSWORD_BASICAUTH: _, ...almost } = canaryEnv();
    const one = await runCli(["serve", spec(), "--require-credentials"], { env: almost });
    expect(one.code).toBe(1);
    expect(one.stderr).toContain("BASIC_PASSWORD_BASICAUTH");
    expect(one.stderr).toContain("get_basic");
    expect(one.stderr).not.toContain("API_KEY_HEADERKEY");
    expect(one.stderr).not.toContain(CANARY);
  });

  it("`requireCredentials: true` in a settings file refuses the same way", async () => {
    const config = writeFile(temp.dir, "strict.settings.json", { requireCredentials: true });
    const run = await runCli(["serve", spec(), "--config", config]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("not starting: credentials are missing");
    expect(run.stderr).toContain(
      "get_bearer, delete_bearer: set BEARER_TOKEN_BEARERAUTH (security scheme 'bearerAuth')",
    );
  });

  it("by default `serve` starts: stderr names the waiting tools and variables by alternative; those tools answer with an error and send nothing", async () => {
    api.on("GET", /^\/v1\/\w+\/ok$/, echo());
    // get_either takes the bearer token, or the header and query keys together.
    const document = guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${login.url}/oauth/token` }) as {
      paths: Record<string, unknown>;
    };
    document.paths["/either/{scenario}"] = {
      get: {
        operationId: "get_either",
        summary: "Either credential",
        security: [{ bearerAuth: [] }, { headerKey: [], queryKey: [] }],
        parameters: [{ name: "scenario", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    };
    const file = writeFile(temp.dir, "tolerant.openapi.json", document);
    const server = await serveOverStdio([file], { env: { API_KEY_HEADERKEY: "hk-tolerant-61" } });
    try {
      await waitFor(() => server.stderr().includes("get_either"));
      const stderr = server.stderr();
      expect(stderr).toContain(
        "credentials are missing for 10 of 14 tools; until they are set, calls to these answer with an error naming them",
      );
      expect(stderr).toContain(
        "  get_bearer, delete_bearer: set BEARER_TOKEN_BEARERAUTH (security scheme 'bearerAuth')\n",
      );
      expect(stderr).toContain(
        "  get_basic, delete_basic: set BASIC_USERNAME_BASICAUTH and BASIC_PASSWORD_BASICAUTH (security scheme 'basicAuth')\n",
      );
      expect(stderr).toContain(
        "  get_either: set BEARER_TOKEN_BEARERAUTH (security scheme 'bearerAuth'), or set API_KEY_QUERYKEY (security scheme 'queryKey')\n",
      );
      // Tools whose credentials are set are not named.
      expect(stderr).not.toMatch(/get_header|getAnything/);

      for (const [tool, variables] of [
        ["get_bearer", ["BEARER_TOKEN_BEARERAUTH"]],
        ["get_basic", ["BASIC_USERNAME_BASICAUTH", "BASIC_PASSWORD_BASICAUTH"]],
        ["get_either", ["BEARER_TOKEN_BEARERAUTH", "API_KEY_QUERYKEY"]],
        ["lookup", ["API_KEY_QUERYKEY"]],
      ] as const) {
        const result = (await server.client.callTool({
          name: tool,
          arguments: tool === "lookup" ? {} : { scenario: "ok" },
        })) as Result;
        expect(result.isError, tool).toBe(true);
        const text = textOf(result);
        expect(text).toContain(`${tool} cannot be called: its credentials are missing.`);
        for (const variable of variables) expect(text).toContain(variable);
        expect(text).toContain("in its environment or settings file");
        expect(text).toContain("Nothing was sent.");
      }
      // The upstream saw nothing of those calls; a tool whose credential is set still works.
      expect(api.requests).toEqual([]);
      const header = (await server.client.callTool({ name: "get_header", arguments: { scenario: "ok" } })) as Result;
      expect(header.isError ?? false, textOf(header)).toBe(false);
      expect(api.to("/v1/header/ok")[0]!.headers["x-api-key"]).toBe("hk-tolerant-61");
      expect(login.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("`call --dry-run` needs no credentials: a placeholder says what is not set, for every kind; nothing is sent", async () => {
    const file = spec();
    const expected: Record<string, string> = {
      header: "x-api-key: <API_KEY_HEADERKEY is not set>",
      query: "/v1/query/ok?api_key=<API_KEY_QUERYKEY is not set>",
      bearer: "authorization: Bearer <BEARER_TOKEN_BEARERAUTH is not set>",
      basic: "authorization: Basic <BASIC_USERNAME_BASICAUTH and BASIC_PASSWORD_BASICAUTH are not set>",
      oauth: "authorization: Bearer <OAUTH_CLIENT_ID_OAUTH and OAUTH_CLIENT_SECRET_OAUTH are not set>",
    };
    for (const [kind, line] of Object.entries(expected)) {
      const run = await runCli(["call", file, `get_${kind}`, "--args", '{"scenario":"ok"}', "--dry-run"]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(line);
    }
    // Partly set: only what is missing is named, and the value that is set never shows.
    const partly = await runCli(["call", file, "get_basic", "--args", '{"scenario":"ok"}', "--dry-run"], {
      env: { BASIC_USERNAME_BASICAUTH: "user-shown-nowhere" },
    });
    expect(partly.stdout).toContain("authorization: Basic <BASIC_PASSWORD_BASICAUTH is not set>");
    expect(partly.stdout + partly.stderr).not.toContain("user-shown-nowhere");
    expect(api.requests).toEqual([]);
    expect(login.requests).toEqual([]);
  });

  it("a real `call` without credentials gives the error result `serve` would, exit 1, and sends nothing", async () => {
    const run = await runCli(["call", spec(), "get_bearer", "--args", '{"scenario":"ok"}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('"isError": true');
    expect(run.stdout).toContain(
      "get_bearer cannot be called: its credentials are missing. Whoever runs this server can set BEARER_TOKEN_BEARERAUTH (security scheme 'bearerAuth')",
    );
    expect(api.requests).toEqual([]);
    // A tool that needs nothing is called as before.
    const petstore = example("petstore.openapi.yaml");
    const free = await runCli(["call", petstore, "listPets", "--dry-run", "--base-url", `${api.url}/v1`]);
    expect(free.code, free.stderr).toBe(0);
  });
});

describe("credentials from a settings file (--config)", () => {
  it("reach the upstream, `${VAR}` in a value read from the environment; they show nowhere", async () => {
    const token = tokenEndpoint(login);
    api.on("GET", /^\/v1\/\w+\/ok$/, echo());
    const spec = writeFile(
      temp.dir,
      "settings.openapi.json",
      guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: token.url }),
    );
    const config = writeFile(temp.dir, "credentials.settings.json", {
      credentials: {
        headerKey: "cfg-header-51",
        queryKey: { value: "${CFG_QUERY_KEY}" },
        bearerAuth: "cfg-bearer-52",
        basicAuth: { username: BASIC_USER, password: "cfg-pass-53" },
        oauth: { clientId: CLIENT_ID, clientSecret: CANARY },
      },
    });
    const server = await serveOverStdio([spec, "--config", config], { env: { CFG_QUERY_KEY: "cfg-query-54" } });
    const shown: string[] = [];
    try {
      for (const kind of ["header", "query", "bearer", "basic", "oauth"]) {
        const result = (await server.client.callTool({ name: `get_${kind}`, arguments: { scenario: "ok" } })) as Result;
        expect(result.isError ?? false, textOf(result)).toBe(false);
        shown.push(JSON.stringify(result));
      }
    } finally {
      await server.close();
    }
    expect(api.to("/v1/header/ok")[0]!.headers["x-api-key"]).toBe("cfg-header-51");
    expect(api.to("/v1/query/ok")[0]!.query).toBe("api_key=cfg-query-54");
    expect(api.to("/v1/bearer/ok")[0]!.headers.authorization).toBe("Bearer cfg-bearer-52");
    expect(api.to("/v1/basic/ok")[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${BASIC_USER}:cfg-pass-53`).toString("base64")}`,
    );
    expect(api.to("/v1/oauth/ok")[0]!.headers.authorization).toBe(`Bearer ${token.issued[0]}`);
    const visible = shown.join("\n") + server.stderr();
    for (const secret of ["cfg-header-51", "cfg-query-54", "cfg-bearer-52", "cfg-pass-53", CANARY, token.issued[0]!])
      expect(visible).not.toContain(secret);
  });

  it("a credential for a scheme the source does not have stops the start, naming the place", async () => {
    const spec = writeFile(
      temp.dir,
      "settings2.openapi.json",
      guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${login.url}/oauth/token` }),
    );
    const config = writeFile(temp.dir, "stray.settings.json", { credentials: { nosuch: "x-value-99" } });
    const run = await runCli(["serve", spec, "--config", config], { env: canaryEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("#/credentials/nosuch");
    expect(run.stderr).toContain("no security scheme 'nosuch'");
    expect(run.stderr).not.toContain("x-value-99");
  });
});

describe("HTTPS enforcement", () => {
  const petstore = example("petstore.openapi.yaml");
  const env = { API_KEY_API_KEY: "pk-https" };

  it("`serve` with a plain-http, non-loopback base URL exits 1, naming the URL and the opt-out", async () => {
    const run = await runCli(["serve", petstore, "--base-url", "http://api.example.com/v1"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("http://api.example.com/v1");
    expect(run.stderr).toContain("not loopback");
    expect(run.stderr).toContain("--allow-insecure-http");
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it("a plain-http token URL is refused the same way", async () => {
    const spec = writeFile(
      temp.dir,
      "http-token.openapi.json",
      guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: "http://login.example.com/oauth/token" }),
    );
    const run = await runCli(["serve", spec], { env: canaryEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("http://login.example.com/oauth/token");
    expect(run.stderr).toContain("token URL");
  });

  it("a plain-http spec URL, or a loopback one that redirects to plain http elsewhere, is never fetched", async () => {
    const direct = await runCli(["inspect", "http://spec.invalid/api.json"]);
    expect(direct.code).toBe(1);
    expect(direct.stderr).toContain("only https:// sources are fetched");
    const redirecting = createServer(
      (_, res) => void res.writeHead(302, { location: "http://spec.invalid/api.json" }).end(),
    );
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      const port = (redirecting.address() as AddressInfo).port;
      const run = await runCli(["inspect", `http://127.0.0.1:${port}/api.json`]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("http://spec.invalid/api.json (redirected from");
    } finally {
      redirecting.close();
    }
  });

  it("with --allow-insecure-http, `serve` starts and warns on stderr, naming the URL", async () => {
    const running = spawnCli(
      ["serve", petstore, "--base-url", "http://api.example.com/v1", "--allow-insecure-http"],
      env,
    );
    try {
      await waitFor(() => running.stderr().includes("serving"));
      const stderr = running.stderr();
      expect(stderr).toContain("WARNING --allow-insecure-http");
      expect(stderr).toContain("http://api.example.com/v1");
      expect(stderr).toContain("unencrypted");
      expect(running.stdout()).toBe("");
    } finally {
      running.child.kill("SIGTERM");
      await running.exited;
    }
  });
});
