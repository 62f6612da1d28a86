// The fingerprint's calls: setups (an engine, or a view of one, with the options a behaviour needs, behind a
// provider) and the calls made to each, as a client would make them. Each setup is built afresh for each protocol
// era, so token caches, rate-limit windows and approval states do not carry from one era to the other.

import { writeFileSync } from "node:fs";
import { bytes, held, json, redirect, status, text } from "./upstream.mjs";

export const SECRETS = {
  API_KEY_HEADERKEY: "hk-secret-5f1e",
  API_KEY_QUERYKEY: "qk/secret=9a7c",
  API_KEY_COOKIEKEY: "ck-secret-33b0",
  BEARER_TOKEN_BEARERAUTH: "bt-secret-c4d2",
  BASIC_USERNAME_BASICAUTH: "alice",
  BASIC_PASSWORD_BASICAUTH: "pw:secret-77e1",
};
const ITEM = { id: 7, name: "seven" };
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const HIDDEN = [..."ignore all"].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0))).join("");
const TRACE = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "congo=t61" };
const YES = { action: "accept", content: { approve: true } };
const NO = { action: "decline" };

export const policies = (tools = {}, denyMode = "hide", classes = {}) => ({
  classes: { read: "allow", write: "allow", destructive: "approve", ...classes },
  tools,
  denyMode,
});

/** What most setups call: success, failures, guard rails, approval. */
function wireCalls(up) {
  return [
    { what: "ok", tool: "getItem", args: { id: 7 }, routes: [["GET", "/v1/items/7", json(ITEM)]] },
    { what: "trace", tool: "getItem", args: { id: 7 }, meta: TRACE, routes: [["GET", "/v1/items/7", json(ITEM)]] },
    { what: "object", tool: "getObject", args: {}, routes: [["GET", "/v1/object", json(ITEM)]] },
    { what: "output mismatch", tool: "getObject", args: {}, routes: [["GET", "/v1/object", json({ id: "x" })]] },
    { what: "array", tool: "getArray", args: {}, routes: [["GET", "/v1/array", json([ITEM])]] },
    { what: "hidden text", tool: "getText", args: {}, routes: [["GET", "/v1/plain", text(`pl\u200Bain${HIDDEN}`)]] },
    { what: "image", tool: "getImage", args: {}, routes: [["GET", "/v1/image", bytes(PNG, "image/png")]] },
    {
      what: "404 problem",
      tool: "getItem",
      args: { id: 1 },
      routes: [
        ["GET", "/v1/items/1", json({ title: "Not Found" }, 404, { "content-type": "application/problem+json" })],
      ],
    },
    { what: "500", tool: "getItem", args: { id: 1 }, routes: [["GET", "/v1/items/1", status(500)]] },
    {
      what: "503 then 200",
      tool: "getItem",
      args: { id: 1 },
      routes: [["GET", "/v1/items/1", status(503), json(ITEM)]],
    },
    {
      what: "429 post",
      tool: "createItem",
      args: { body: { name: "n" } },
      routes: [["POST", "/v1/items", status(429, { "retry-after": "1" })]],
    },
    {
      what: "redirect elsewhere",
      tool: "getItem",
      args: { id: 4 },
      routes: [["GET", "/v1/items/4", redirect(307, `http://localhost:${up.port}/v1/items/1`)]],
    },
    { what: "timeout", tool: "getItem", args: { id: 2 }, routes: [["GET", "/v1/items/2", () => {}]] },
    { what: "bad type", tool: "getItem", args: { id: "one" } },
    { what: "under minimum", tool: "getItem", args: { id: 0 } },
    { what: "extra argument", tool: "getItem", args: { id: 1, extra: true } },
    { what: "unknown tool", tool: "noSuchTool", args: {} },
    {
      what: "json body",
      tool: "jsonBody",
      args: { body: { name: "widget", tags: ["a"], details: { sizes: [1, 2] } } },
      routes: [["POST", "/v1/json", json({ id: 7, name: "widget", tags: ["a"] }, 201)]],
    },
    {
      what: "form body",
      tool: "formBody",
      args: { body: { name: "a b&c", ids: [1, 2], tags: ["x", "y"], meta: { k: "v" } } },
      routes: [["POST", "/v1/form", status(204)]],
    },
    { what: "text body", tool: "textBody", args: { body: "héllo" }, routes: [["POST", "/v1/text", text("got it")]] },
    {
      what: "binary body",
      tool: "binaryBody",
      args: { name: "r 1.bin", body: Buffer.from([0, 1, 254]).toString("base64") },
      routes: [["PUT", "/v1/binary/r%201.bin", status(204)]],
    },
    {
      what: "secret echoed",
      tool: "withHeaderKey",
      args: {},
      routes: [["GET", "/v1/secure/header", text(`your key is ${SECRETS.API_KEY_HEADERKEY}`, 400)]],
    },
    { what: "query key", tool: "withQueryKey", args: { q: "a" }, routes: [["GET", "/v1/secure/query", status(204)]] },
    {
      what: "cookie key",
      tool: "withCookieKey",
      args: { theme: "d" },
      routes: [["GET", "/v1/secure/cookie", status(204)]],
    },
    {
      what: "bearer or basic",
      tool: "withBearerOrBasic",
      args: {},
      routes: [["GET", "/v1/secure/either", status(204)]],
    },
    { what: "key pair", tool: "withKeyPair", args: {}, routes: [["GET", "/v1/secure/both", status(204)]] },
    ...approvals("deleteThing", { id: 9 }, [["DELETE", "/v1/things/9", status(204)]]),
    { what: "denied", tool: "putItem", args: { id: 1, body: { name: "n" } } },
  ];
}

/** The approval answers: yes, no, cancel, and a client that cannot be asked. */
function approvals(tool, args, routes, wrap = (a) => a) {
  return [
    { what: `${tool} approved`, tool, args: wrap(args), routes, elicit: YES },
    { what: `${tool} declined`, tool, args: wrap(args), routes, elicit: NO },
    { what: `${tool} cancelled`, tool, args: wrap(args), routes, elicit: { action: "cancel" } },
    {
      what: `${tool} unticked`,
      tool,
      args: wrap(args),
      routes,
      elicit: { action: "accept", content: { approve: false } },
    },
    { what: `${tool} cannot ask`, tool, args: wrap(args), routes },
  ];
}

/** An approval queue that answers at once, as an admin in the console would: yes for id 1, no for the rest. */
const consoleQueue = {
  ask: async ({ request }) =>
    request.arguments.id === 1 ? { answer: "accept", by: "console:ann" } : { answer: "decline", by: "console:bob" },
  pending: async () => [],
  decide: async () => "gone",
};

export function setups({ lib, up, temp }) {
  const wire = () => lib.loadCatalog("test/fixtures/e2e/wire.openapi.yaml", { baseUrl: `${up.url}/v1` });
  const engine = async (options) =>
    new lib.Engine({ catalog: await wire(), env: { ...SECRETS }, retryDelaysMs: [5, 10], timeoutMs: 300, ...options });
  return [
    {
      name: "tools",
      build: async ({ audit }) => engine({ audit, policies: policies({ putItem: "deny" }, "refuse") }),
      calls: wireCalls(up),
    },
    {
      name: "hidden",
      build: async ({ audit }) =>
        engine({
          audit,
          env: { API_KEY_HEADERKEY: SECRETS.API_KEY_HEADERKEY },
          policies: policies({ putItem: "deny" }),
          maxArgumentBytes: 200,
          maxArrayItems: 5,
        }),
      calls: [
        { what: "missing credentials", tool: "withBearerOrBasic", args: {} },
        { what: "missing before bad args", tool: "withQueryKey", args: { q: 5 } },
        { what: "hidden denied", tool: "putItem", args: { id: 1, body: { name: "n" } } },
        { what: "too big", tool: "postAnything", args: { name: "x", body: { a: "x".repeat(400) } } },
        { what: "too many items", tool: "postAnything", args: { name: "x", body: { a: [1, 2, 3, 4, 5, 6, 7] } } },
        { what: "allowed", tool: "withHeaderKey", args: {}, routes: [["GET", "/v1/secure/header", status(204)]] },
      ],
    },
    {
      name: "limits",
      build: async ({ audit }) =>
        engine({
          audit,
          rateLimits: { tools: { getItem: { requests: 1, windowSeconds: 3600 } } },
          maxInFlight: 1,
          maxQueued: 0,
        }),
      calls: [
        { what: "first", tool: "getItem", args: { id: 7 }, routes: [["GET", "/v1/items/7", json(ITEM)]] },
        {
          what: "second, rate limited",
          tool: "getItem",
          args: { id: 7 },
          routes: [["GET", "/v1/items/7", json(ITEM)]],
        },
        { what: "in flight refused", overlap: { tool: "getAnything", args: { name: "h" } } },
      ],
    },
    {
      name: "console approvals",
      build: async ({ audit }) => engine({ audit, approvals: { routes: "console", queue: consoleQueue } }),
      calls: [
        {
          what: "admin approves",
          tool: "deleteThing",
          args: { id: 1 },
          routes: [["DELETE", "/v1/things/1", status(204)]],
        },
        { what: "admin declines", tool: "deleteThing", args: { id: 2 }, elicit: YES },
        { what: "read is not asked", tool: "getItem", args: { id: 7 }, routes: [["GET", "/v1/items/7", json(ITEM)]] },
      ],
    },
    {
      name: "both routes",
      build: async ({ audit }) =>
        engine({ audit, approvals: { routes: { destructive: "both" }, queue: consoleQueue } }),
      calls: [
        {
          what: "console first",
          tool: "deleteThing",
          args: { id: 1 },
          routes: [["DELETE", "/v1/things/1", status(204)]],
        },
        { what: "console declines", tool: "deleteThing", args: { id: 3 } },
      ],
    },
    {
      name: "hooks",
      build: async ({ audit }) =>
        engine({
          audit,
          hooks: {
            beforeRequest: ({ tool, request }) => ({
              ...request,
              headers: { ...request.headers, "x-hook": tool.name },
            }),
            afterResult: ({ result }) => ({
              ...result,
              content: [...result.content, { type: "text", text: "hooked" }],
            }),
          },
        }),
      calls: [
        { what: "both hooks", tool: "getItem", args: { id: 7 }, routes: [["GET", "/v1/items/7", json(ITEM)]] },
        { what: "refused before hooks", tool: "getItem", args: { id: 0 } },
      ],
    },
    {
      name: "profile",
      build: async ({ audit }) =>
        (await engine({ audit })).withProfile({
          name: "team",
          tools: (tool) => tool.name !== "getText",
          policy: ["getObject=approve", "deleteThing=deny"],
          budgets: { calls: { requests: 2, windowSeconds: 3600 } },
        }),
      calls: [
        { what: "ok", tool: "getItem", args: { id: 7 }, routes: [["GET", "/v1/items/7", json(ITEM)]] },
        {
          what: "approve by profile",
          tool: "getObject",
          args: {},
          elicit: YES,
          routes: [["GET", "/v1/object", json(ITEM)]],
        },
        { what: "budget spent", tool: "getItem", args: { id: 7 }, routes: [["GET", "/v1/items/7", json(ITEM)]] },
        { what: "outside profile", tool: "getText", args: {} },
        { what: "denied by profile", tool: "deleteThing", args: { id: 9 } },
      ],
    },
    {
      name: "dynamic",
      build: async ({ audit }) => {
        const made = await engine({ audit, policies: policies({ putItem: "deny" }) });
        return new lib.DynamicProvider({ engine: made, catalog: await wire() });
      },
      calls: [
        { what: "search", tool: "search_tools", args: { query: "delete a thing", limit: 3 } },
        { what: "describe", tool: "describe_tool", args: { name: "getItem" } },
        { what: "describe hidden", tool: "describe_tool", args: { name: "putItem" } },
        {
          what: "call",
          tool: "call_tool",
          args: { name: "getItem", arguments: { id: 7 } },
          routes: [["GET", "/v1/items/7", json(ITEM)]],
        },
        { what: "call bad", tool: "call_tool", args: { name: "getItem", arguments: { id: "x" } } },
        { what: "call unknown", tool: "call_tool", args: { name: "getIte", arguments: {} } },
        ...approvals("call_tool", { name: "deleteThing", arguments: { id: 9 } }, [
          ["DELETE", "/v1/things/9", status(204)],
        ]),
      ],
    },
    {
      name: "code",
      build: async ({ audit }) => {
        const made = await engine({ audit });
        return new lib.CodeProvider({ engine: made, catalog: await wire() });
      },
      calls: [
        { what: "search", tool: "search_tools", args: { query: "get an item" } },
        { what: "describe", tool: "describe_tools", args: { names: ["getItem", "deleteThing"] } },
        {
          what: "script",
          tool: "execute",
          args: { code: "const a = await api.getItem({ id: 7 }); console.log('x'); return a;" },
          routes: [["GET", "/v1/items/7", json(ITEM)]],
        },
        { what: "script failing call", tool: "execute", args: { code: "return await api.getItem({ id: 0 });" } },
        ...approvals(
          "execute",
          { code: "const a = await api.getItem({ id: 7 }); await api.deleteThing({ id: 9 }); return a;" },
          [
            ["GET", "/v1/items/7", json(ITEM)],
            ["DELETE", "/v1/things/9", status(204)],
          ],
        ),
      ],
    },
    {
      name: "oauth",
      build: async ({ audit }) => {
        issued.count = 0;
        const spec = `${temp}/oauth-${up.port}.openapi.json`;
        writeFileSync(spec, JSON.stringify(oauthSpec(up)));
        const catalog = await lib.loadCatalog(spec, { allowInsecureHttp: true });
        const env = { OAUTH_CLIENT_ID_LOGIN: "client-1", OAUTH_CLIENT_SECRET_LOGIN: "client-secret-9" };
        return new lib.Engine({ catalog, env, audit, allowInsecureHttp: true, retryDelaysMs: [5] });
      },
      calls: [
        { what: "token then 401, refreshed", tool: "getThing", args: {}, routes: oauthRoutes() },
        { what: "cached token", tool: "getThing", args: {}, routes: oauthRoutes() },
        { what: "401 twice", tool: "getOther", args: {}, routes: oauthRoutes() },
      ],
    },
  ];
}

/** Tokens issued by the oauth setup's token endpoint since it was built. */
const issued = { count: 0 };

/** A token endpoint; an API that refuses the first token it sees (revoked upstream), and /other that refuses all. */
function oauthRoutes() {
  const token = (_req, res) =>
    void res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ access_token: `tok-${++issued.count}`, token_type: "Bearer", expires_in: 3600 }));
  const thing = (req, res) => {
    if (req.headers.authorization === "Bearer tok-1")
      return void res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  };
  return [
    ["POST", "/token", token],
    ["GET", "/v1/thing", thing],
    ["GET", "/v1/other", status(401)],
  ];
}

function oauthSpec(up) {
  const op = (id) => ({ get: { operationId: id, responses: { 200: { description: "ok" } } } });
  return {
    openapi: "3.0.3",
    info: { title: "OAuth", version: "1" },
    servers: [{ url: `${up.url}/v1` }],
    security: [{ login: [] }],
    paths: { "/thing": op("getThing"), "/other": op("getOther") },
    components: {
      securitySchemes: {
        login: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${up.url}/token`, scopes: {} } } },
      },
    },
  };
}

export { held };
