// The canary: one secret value used as every credential the engine can inject (an API key in a header and in the
// query, a bearer token, a basic password, an OAuth client secret) plus the access tokens a loopback token endpoint
// issues for it. Calls succeed, fail, echo the request (credentials included) back in their bodies, time out,
// cannot connect, are redirected to another origin, do not match their output schema and wait for approval; the
// canary, in every form it takes (as is, percent-encoded, base64, the basic pair's base64), must appear nowhere a
// model or an operator reads: tool results, JSON-RPC errors, elicitation messages, logs, audit lines, `call`,
// `serve`, `inspect` and `validate` output.

import { readFileSync } from "node:fs";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { memoryAuditLog } from "../../src/runtime/audit/audit.js";
import type { AuditRecord } from "../../src/runtime/audit/audit-record.js";
import { Engine } from "../../src/runtime/engine.js";
import { runCli } from "../support/cli.js";
import { closedPort } from "../support/e2e.js";
import {
  APPROVE,
  BASIC_USER,
  CANARY,
  canaryEnv,
  connectProvider,
  echo,
  forbiddenForms,
  guardSpec,
  type InProcess,
  KINDS,
  type Kind,
  leaksIn,
  decodedBlobs,
  revealed,
  serveOverStdio,
  type TokenEndpoint,
  tempDir,
  textOf,
  tokenEndpoint,
  writeFile,
} from "../support/guard.js";
import { delayed, type Reply, Upstream } from "../support/upstream.js";

let api: Upstream;
let elsewhere: Upstream;
let login: Upstream;
let token: TokenEndpoint;
let spec: string;
let temp: ReturnType<typeof tempDir>;

/** Scenario → how the API answers it (for GET and DELETE alike). */
function scenarios(): Record<string, Parameters<Upstream["on"]>[2]> {
  return {
    ok: echo(),
    keyed: echo({ as: "keyed" }),
    text: echo({ as: "text" }),
    binary: echo({ as: "binary" }),
    e400: echo({ status: 400 }),
    e401: echo({ status: 401 }),
    e404: echo({ status: 404, as: "text" }),
    e500: echo({ status: 500, as: "text" }),
    e503: echo({ status: 503 }),
    mismatch: echo({ ok: "not a boolean" }),
    // Same origin: followed, the credential going along.
    hop: ({ res, recorded }) =>
      void res.writeHead(302, { location: recorded.url.replace("/hop", "/ok"), "content-length": 0 }).end(),
    redirect: ({ res, recorded }) => {
      // Another origin, with the request's own query (and the key in it) carried along, as a careless API would.
      const at = recorded.url.indexOf("?");
      res
        .writeHead(302, {
          location: `${elsewhere.url}/steal${at === -1 ? "" : recorded.url.slice(at)}`,
          "content-length": 0,
        })
        .end();
    },
    slow: delayed(6_000, echo()),
  };
}
const SCENARIOS = Object.keys(scenarios());

beforeAll(async () => {
  [api, elsewhere, login] = await Promise.all([Upstream.start(), Upstream.start(), Upstream.start()]);
  token = tokenEndpoint(login);
  for (const [name, reply] of Object.entries(scenarios())) {
    const path = new RegExp(`^/v1/(${KINDS.join("|")})/${name}$`);
    api.on("GET", path, reply);
    api.on("DELETE", path, reply);
  }
  api.on("GET", /^\/v1\/anything\//, echo({ as: "binary" }));
  elsewhere.on("GET", /.*/, echo());
  temp = tempDir();
  spec = writeFile(temp.dir, "guard.openapi.json", guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: token.url }));
});

afterAll(async () => {
  await Promise.all([api.close(), elsewhere.close(), login.close()]);
  temp.remove();
});

/** The forbidden forms, tokens issued so far included. */
const forms = (): string[] => forbiddenForms(token.issued);

function expectNoLeak(where: string, text: string): void {
  expect(leaksIn(text, forms()), `${where} shows the secret:\n${text.slice(0, 3_000)}`).toEqual([]);
}

/** The calls answered with binary content (a resource): tools without an output schema. */
const isBlob = (what: string): boolean => what === "getAnything binary" || /^delete_\w+ binary$/.test(what);

/** Each of `shown` (what → text) that shows the secret, with the forms found: all of them, not only the first. */
function leaking(shown: Array<{ what: string; shown: string }>): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const { what, shown: text } of shown) {
    const hits = leaksIn(text, forms());
    if (hits.length > 0) found[what] = hits;
  }
  return found;
}

/** What the upstream received for `kind`, to prove the credential did go out (so a clean result means masking). */
function sentCredential(kind: Kind, request: { headers: Record<string, unknown>; url: string }): boolean {
  switch (kind) {
    case "header":
      return request.headers["x-api-key"] === CANARY;
    case "query":
      return request.url.includes(`api_key=${encodeURIComponent(CANARY)}`);
    case "bearer":
      return request.headers.authorization === `Bearer ${CANARY}`;
    case "basic":
      return request.headers.authorization === `Basic ${Buffer.from(`${BASIC_USER}:${CANARY}`).toString("base64")}`;
    case "oauth":
      return (
        typeof request.headers.authorization === "string" &&
        token.issued.some((t) => request.headers.authorization === `Bearer ${t}`)
      );
  }
}

describe("in process: the engine behind the SDK client", () => {
  let connected: InProcess;
  let unreachable: InProcess;
  const audit = memoryAuditLog();
  const logs: string[] = [];
  const seen: Array<{ what: string; shown: string; blobs: string }> = [];

  beforeAll(async () => {
    const catalog = await loadCatalog(spec);
    // Every call at once, each one sent: no in-flight limit holds one back (in-flight.test.ts covers those).
    const engine = new Engine({
      catalog,
      env: canaryEnv(),
      timeoutMs: 2_000,
      retryDelaysMs: [5, 10],
      audit,
      maxInFlightPerPrincipal: 1_000,
      maxQueued: 1_000,
    });
    connected = await connectProvider(engine, { elicit: APPROVE, log: (line) => logs.push(line) });
    const down = await loadCatalog(spec, { baseUrl: `http://127.0.0.1:${await closedPort()}/v1` });
    unreachable = await connectProvider(new Engine({ catalog: down, env: canaryEnv(), retryDelaysMs: [5], audit }), {
      elicit: APPROVE,
      log: (line) => logs.push(line),
    });

    const calls: Array<Promise<void>> = [];
    const record = (what: string, client: InProcess, name: string, args: Record<string, unknown>): void => {
      calls.push(
        client.client.callTool({ name, arguments: args }).then(
          (result) => void seen.push({ what, shown: JSON.stringify(result), blobs: decodedBlobs(result) }),
          (error: unknown) =>
            void seen.push({
              what: `${what} (JSON-RPC error)`,
              shown: error instanceof McpError ? `${error.code} ${error.message}` : String(error),
              blobs: "",
            }),
        ),
      );
    };
    for (const kind of KINDS) {
      for (const scenario of SCENARIOS) {
        record(`get_${kind} ${scenario}`, connected, `get_${kind}`, { scenario });
        record(`delete_${kind} ${scenario}`, connected, `delete_${kind}`, { scenario });
      }
      record(`get_${kind} unreachable`, unreachable, `get_${kind}`, { scenario: "ok" });
      record(`delete_${kind} unreachable`, unreachable, `delete_${kind}`, { scenario: "ok" });
    }
    record("getAnything binary", connected, "getAnything", { name: "x" });
    record("lookup invalid", connected, "lookup", { limit: 0 });
    record("unknown tool", connected, "no_such_tool", {});
    await Promise.all(calls);
  });

  afterAll(async () => {
    await connected.close();
    await unreachable.close();
  });

  it("did send the canary upstream for every kind (so a clean result is masking, not absence)", () => {
    for (const kind of KINDS) {
      const requests = api.requests.filter((r) => r.path === `/v1/${kind}/ok`);
      expect(requests.length, kind).toBeGreaterThan(0);
      expect(
        requests.every((r) => sentCredential(kind, r)),
        kind,
      ).toBe(true);
    }
    expect(token.issued.length).toBeGreaterThan(0);
  });

  it("tool results and JSON-RPC errors never show it, in any form", () => {
    expect(seen.length).toBe(KINDS.length * (SCENARIOS.length + 1) * 2 + 3);
    // Two kinds of echo have tests of their own below.
    expect(leaking(seen.filter((s) => !s.what.endsWith(" keyed") && !isBlob(s.what)))).toEqual({});
  });

  it("nor does a JSON response that uses it as an object key (an API listing keys by value)", () => {
    const keyed = seen.filter((s) => s.what.endsWith(" keyed"));
    expect(keyed).toHaveLength(KINDS.length * 2);
    // The text block is masked; structuredContent must be too, keys included.
    expect(leaking(keyed)).toEqual({});
  });

  it("nor the bytes of binary content (resource blobs) that echo it", () => {
    const binary = seen.filter((s) => isBlob(s.what));
    expect(binary).toHaveLength(KINDS.length + 1);
    for (const { what, blobs, shown } of binary)
      expect(blobs.length, `${what} returned binary content ${shown}`).toBeGreaterThan(0);
    // The resource URI is masked; the bytes (and so, at times, the base64 text itself) are not.
    expect(leaking(binary.map(({ what, shown, blobs }) => ({ what, shown: `${shown}\n${blobs}` })))).toEqual({});
  });

  it("the echoes did carry it: the results show the mask where the secret was", () => {
    for (const kind of KINDS) {
      for (const scenario of ["ok", "keyed", "e400", "e404", "e500", "mismatch"]) {
        const { shown } = seen.find((s) => s.what === `get_${kind} ${scenario}`)!;
        expect(shown, `get_${kind} ${scenario}`).toContain("****");
      }
    }
  });

  it("the failures are reported as such (status, timeout, network, redirect, mismatch)", () => {
    const shown = (what: string): string => seen.find((s) => s.what === what)!.shown;
    expect(shown("get_bearer e404")).toContain("404 Not Found");
    expect(shown("get_basic e500")).toContain("500 Internal Server Error");
    expect(shown("get_query slow")).toContain("no complete response within 2000 ms");
    expect(shown("get_oauth redirect")).toContain("redirected to another origin");
    expect(shown("get_header mismatch")).toContain("does not match the tool's output schema");
    expect(shown("get_query unreachable")).toContain("ECONNREFUSED");
    expect(shown("get_query unreachable")).toContain("api_key=****");
    expect(shown("unknown tool (JSON-RPC error)")).toContain("Unknown tool");
    // The other origin never saw a request.
    expect(elsewhere.requests).toEqual([]);
  });

  it("approval prompts never show it", () => {
    // Every DELETE asked first (the default policy: destructive=approve).
    expect(connected.asked.length).toBe(KINDS.length * SCENARIOS.length);
    const queryPrompt = connected.asked.find((m) => m.includes("/v1/query/ok"));
    expect(queryPrompt).toContain("api_key=****");
    for (const message of connected.asked) expectNoLeak("elicitation message", message);
    for (const message of unreachable.asked) expectNoLeak("elicitation message", message);
  });

  it("audit records and logs never show it", () => {
    const records: AuditRecord[] = audit.records;
    expect(records.length).toBe(KINDS.length * (SCENARIOS.length + 1) * 2 + 2);
    expect(records.find((r) => r.tool === "get_query" && r.url?.includes("/v1/query/ok"))?.url).toContain(
      "api_key=****",
    );
    for (const record of records) expectNoLeak("audit record", JSON.stringify(record));
    expectNoLeak("server log", logs.join("\n"));
  });

  it("an echo cut at the excerpt limit shows no piece of the secret either", async () => {
    // A 500 whose body holds the Authorization header just where the 1,000-character excerpt ends.
    const prefix = "Bearer ";
    const cutAt = 1_000 - prefix.length - 12;
    api.on("GET", "/v1/bearer/cut", ({ res, recorded }) => {
      const body = `${"E".repeat(cutAt)}${String(recorded.headers.authorization)}${"E".repeat(50)}`;
      res.writeHead(500, { "content-type": "text/plain" }).end(body);
    });
    api.on("GET", "/v1/bearer/cutok", ({ res, recorded }) => {
      // The same, in a 200 that does not match the output schema (its excerpt is cut at 1,000 too).
      const padding = "E".repeat(1_000 - '{"ok":"no","pad":"'.length - '","auth":"Bearer '.length - 12);
      const body = JSON.stringify({ ok: "no", pad: padding, auth: String(recorded.headers.authorization) });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    const found: Record<string, string[]> = {};
    for (const scenario of ["cut", "cutok"]) {
      const result = await connected.client.callTool({ name: "get_bearer", arguments: { scenario } });
      const text = textOf(result);
      expect(result.isError, scenario).toBe(true);
      expect(text, scenario).toContain("EEEE");
      // Any 8 characters of the secret in a row is a piece of it.
      found[scenario] = Array.from({ length: CANARY.length - 7 }, (_, i) => CANARY.slice(i, i + 8)).filter((piece) =>
        text.includes(piece),
      );
    }
    expect(found).toEqual({ cut: [], cutok: [] });
  });
});

/** A second secret holding every character that escapes differently (`&`, `/`, `+`, `=`, `"`, `<`, `~`), in both cases. */
const ODD = 'Tr0ub&4dor/3+x=K"<y~Zq';

const every = (k: string, code: (byte: number) => string): string => [...Buffer.from(k)].map(code).join("");
const hex2 = (byte: number): string => byte.toString(16).padStart(2, "0");
const special = (k: string, code: (c: string) => string): string => k.replace(/[^A-Za-z0-9]/g, code);
// HTML names no entity for `~` (`&tilde;` is U+02DC).
const HTML_NAMES: Record<string, string> = {
  "&": "&amp;",
  "/": "&sol;",
  "+": "&plus;",
  "=": "&equals;",
  '"': "&quot;",
  "<": "&lt;",
};

/** The forms an API that echoes what it was sent (or one the model steers) can give a secret back in. */
const ENCODINGS: Record<string, (k: string) => string> = {
  "as is": (k) => k,
  "upper-case": (k) => k.toUpperCase(),
  "lower-case": (k) => k.toLowerCase(),
  "percent-encoded": (k) => encodeURIComponent(k),
  "percent-encoded, lower-case hex": (k) => encodeURIComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  "percent-encoded, every byte": (k) => every(k, (b) => `%${hex2(b)}`),
  "percent-encoded twice": (k) => encodeURIComponent(encodeURIComponent(k)),
  "form-encoded": (k) => new URLSearchParams({ v: k }).toString().slice(2),
  "JSON, \\/ escaped": (k) => JSON.stringify(k).slice(1, -1).replace(/\//g, "\\/"),
  "JSON, \\u escaped": (k) => every(k, (b) => `\\u00${hex2(b)}`),
  "HTML named entities": (k) => k.replace(/[&/+="<]/g, (c) => HTML_NAMES[c]!),
  "HTML decimal entities": (k) => special(k, (c) => `&#${c.charCodeAt(0)};`),
  "HTML hex entities": (k) => special(k, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`),
  "HTML-escaped JSON escapes": (k) => every(k, (b) => `&#92;u00${hex2(b)}`),
  base64: (k) => Buffer.from(k).toString("base64"),
  'base64 of "key=" + it': (k) => Buffer.from(`key=${k}`).toString("base64"),
  'base64 of "k=" + it': (k) => Buffer.from(`k=${k}`).toString("base64"),
  'base64 of "x" + it': (k) => Buffer.from(`x${k}`).toString("base64"),
  'base64url of "key=" + it': (k) => Buffer.from(`key=${k}`).toString("base64url"),
  'base64url of "k=" + it': (k) => Buffer.from(`k=${k}`).toString("base64url"),
  "hex, lower-case": (k) => Buffer.from(k).toString("hex"),
  "hex, upper-case": (k) => Buffer.from(k).toString("hex").toUpperCase(),
};

/** How a body is sent: its media type, its bytes and its status. */
const CONTAINERS: Record<string, { type: string; status?: number; bytes: (text: string) => Buffer }> = {
  text: { type: "text/plain; charset=utf-8", bytes: (t) => Buffer.from(t) },
  binary: { type: "application/octet-stream", bytes: (t) => Buffer.from(t) },
  utf16le: { type: "text/plain; charset=utf-16le", bytes: (t) => Buffer.from(t, "utf16le") },
  utf16be: { type: "text/plain; charset=utf-16be", bytes: (t) => Buffer.from(t, "utf16le").swap16() },
  "utf16 error": { type: "text/plain; charset=utf-16le", status: 500, bytes: (t) => Buffer.from(t, "utf16le") },
  "utf16 JSON": {
    type: "application/json; charset=utf-16le",
    bytes: (t) => Buffer.from(JSON.stringify({ echo: t }), "utf16le"),
  },
};

/**
 * GET /anything/<container>~<encoding>?q=<n>: `n` dots (the padding the model chooses), then the API key the
 * request carried in the encoding, then more dots.
 */
const encodedEcho: Reply = ({ res, recorded }) => {
  const [container, encoding] = decodeURIComponent(recorded.path.slice("/v1/anything/".length)).split("~") as [
    string,
    string,
  ];
  const pad = Number(new URLSearchParams(recorded.query).get("q") ?? "0");
  const shape = CONTAINERS[container]!;
  const body = shape.bytes(
    `${".".repeat(pad)}${ENCODINGS[encoding]!(String(recorded.headers["x-api-key"]))}${".".repeat(300)}`,
  );
  res.writeHead(shape.status ?? 200, { "content-type": shape.type, "content-length": body.length }).end(body);
};

/** What the model reads of a result: its JSON, and its binary content decoded as Latin-1 and as UTF-16. */
function readable(result: object): string {
  const utf16 = Buffer.from(decodedBlobs(result), "latin1").toString("utf16le");
  return `${JSON.stringify(result)}\n${decodedBlobs(result)}\n${utf16}`;
}

describe("masking that neither a cut nor another encoding beats", () => {
  const LIMIT = 4_096;
  let small: InProcess;
  let full: InProcess;
  const audit = memoryAuditLog();
  const env = { ...canaryEnv(), API_KEY_HEADERKEY: ODD, API_KEY_QUERYKEY: ODD };

  beforeAll(async () => {
    api.on("GET", /^\/v1\/anything\/[^/]*~/, encodedEcho);
    const catalog = await loadCatalog(spec);
    small = await connectProvider(new Engine({ catalog, env, maxResponseBytes: LIMIT, audit }));
    full = await connectProvider(new Engine({ catalog, env }));
  });

  afterAll(async () => {
    await small.close();
    await full.close();
  });

  const call = (client: InProcess, container: string, encoding: string, pad = 0): Promise<object> =>
    client.client.callTool({ name: "getAnything", arguments: { name: `${container}~${encoding}`, q: String(pad) } });

  it("each equivalent form of a secret an API echoes is masked: in text, binary, UTF-16 and JSON bodies", async () => {
    const found: Record<string, string[]> = {};
    const unmasked: string[] = [];
    for (const container of Object.keys(CONTAINERS)) {
      for (const encoding of Object.keys(ENCODINGS)) {
        const shown = readable(await call(small, container, encoding));
        const hits = revealed(shown, ODD, { piece: 6 });
        if (hits.length > 0) found[`${container}: ${encoding}`] = hits;
        if (!shown.includes("****")) unmasked.push(`${container}: ${encoding}`);
      }
    }
    expect(found).toEqual({});
    // The echo did carry it (so a clean result is masking): the mask shows where it was.
    expect(unmasked).toEqual([]);
  });

  it("a cut at --max-response-bytes never falls inside a secret: read past the limit, masked whole, then cut", async () => {
    const found: Record<string, string[]> = {};
    const sweeps: Array<[string, string]> = [
      ["text", "as is"],
      ["text", "percent-encoded, lower-case hex"],
      ["text", 'base64 of "key=" + it'],
      ["text", "JSON, \\u escaped"],
      ["text", "HTML hex entities"],
      ["utf16le", "as is"],
      ["utf16be", "percent-encoded"],
    ];
    let calls = 0;
    for (const [container, encoding] of sweeps) {
      const form = CONTAINERS[container]!.bytes(ENCODINGS[encoding]!(ODD));
      const unit = container.startsWith("utf16") ? 2 : 1;
      // Every padding that puts the limit inside the form.
      for (let pad = Math.floor((LIMIT - form.length) / unit) + 1; pad * unit < LIMIT; pad++) {
        const result = await call(small, container, encoding, pad);
        calls++;
        const text = textOf(result);
        expect(text, `${container} ${encoding} ${pad}`).toContain("[truncated:");
        const hits = revealed(text, ODD, { piece: 4 });
        if (hits.length > 0)
          found[`${container}: ${encoding}, ${pad} characters of padding: ${text.slice(-150)}`] = hits;
      }
    }
    expect(calls).toBeGreaterThan(250);
    expect(found).toEqual({});
    // With the default limit (1 MiB) too.
    const result = await call(full, "text", "as is", 1024 * 1024 - 12);
    expect(textOf(result)).toContain("[truncated:");
    expect(revealed(textOf(result), ODD, { piece: 4 })).toEqual([]);
  });

  it("the 1,000-character excerpt of a UTF-16 error body shows no piece of the secret", async () => {
    const found: Record<string, string[]> = {};
    for (let pad = 1_000 - ODD.length; pad < 1_000; pad++) {
      const text = textOf(await call(small, "utf16 error", "as is", pad));
      expect(text).toContain("500 Internal Server Error");
      const hits = revealed(text, ODD, { piece: 4 });
      if (hits.length > 0) found[`${pad}: ${text.slice(990, 1_100)}`] = hits;
    }
    expect(found).toEqual({});
  });

  it("the audit log's URL, cut at 2,000 characters, shows no piece of a query key", async () => {
    const before = audit.records.length;
    const key = encodeURIComponent(ODD);
    const prefix = `${api.url}/v1/lookup?q=`.length + "&api_key=".length;
    for (let at = 1; at < key.length; at++) {
      await small.client.callTool({ name: "lookup", arguments: { q: "q".repeat(2_000 - prefix - at) } });
    }
    const urls = audit.records.slice(before).map((r) => r.url ?? "");
    expect(urls).toHaveLength(key.length - 1);
    for (const url of urls) expect(url.length).toBeLessThanOrEqual(2_001);
    expect(urls.filter((url) => revealed(url, ODD, { piece: 4 }).length > 0).map((url) => url.slice(-50))).toEqual([]);
  });

  it("nor do the audit log's arguments, cut at 200 characters, show a piece of one a model passes on", async () => {
    const before = audit.records.length;
    for (let at = 1; at < ODD.length; at++) {
      await small.client.callTool({ name: "lookup", arguments: { q: `${"q".repeat(200 - at)}${ODD}` } });
    }
    const shown = audit.records.slice(before).map((r) => String(r.arguments.q));
    expect(shown).toHaveLength(ODD.length - 1);
    expect(shown.filter((q) => revealed(q, ODD, { piece: 4 }).length > 0).map((q) => q.slice(-30))).toEqual([]);
  });
});

describe("token endpoint errors", () => {
  /** A token endpoint on `login` at `path` that answers every request with `reply`. */
  async function oauthClient(path: string, reply: Reply): Promise<InProcess> {
    login.on("POST", path, reply);
    const oauthSpec = writeFile(
      temp.dir,
      `oauth${path.replace(/\//g, "-")}.json`,
      guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${login.url}${path}` }),
    );
    return connectProvider(
      new Engine({ catalog: await loadCatalog(oauthSpec), env: { ...canaryEnv(), OAUTH_CLIENT_SECRET_OAUTH: ODD } }),
    );
  }

  const secretAfter = (padding: number, form: string): string => `${"x".repeat(padding)} client_secret=${form}`;

  it("an error_description echoing the client secret past 200 characters is masked before it is cut", async () => {
    const found: Record<string, string[]> = {};
    const forms = { "as is": ODD, "percent-encoded, lower-case hex": encodeURIComponent(ODD).toLowerCase() };
    for (const [name, form] of Object.entries(forms)) {
      for (const padding of [150, 175, 185, 190]) {
        const client = await oauthClient(`/oauth/desc-${padding}-${name.length}`, ({ res }) => {
          res
            .writeHead(400, { "content-type": "application/json" })
            .end(JSON.stringify({ error: "invalid_client", error_description: secretAfter(padding, form) }));
        });
        try {
          const text = textOf(await client.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } }));
          expect(text).toContain("invalid_client");
          const hits = revealed(text, ODD, { piece: 4 });
          if (hits.length > 0) found[`${name}, ${padding}: ${text.slice(-80)}`] = hits;
        } finally {
          await client.close();
        }
      }
    }
    expect(found).toEqual({});
  });

  it("a token_type echoing the client secret is masked", async () => {
    const client = await oauthClient("/oauth/type", ({ res }) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ access_token: "t0k3n-value", token_type: `mac ${ODD}` }));
    });
    try {
      const text = textOf(await client.client.callTool({ name: "get_oauth", arguments: { scenario: "ok" } }));
      expect(text).toContain("is not supported");
      expect(revealed(text, ODD, { piece: 4 })).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("the built CLI", () => {
  const env = canaryEnv();

  it("`serve` over stdio: results, prompts, stderr and the --audit-log file never show it", async () => {
    const auditFile = `${temp.dir}/serve-audit.jsonl`;
    const server = await serveOverStdio([spec, "--timeout", "2000", "--audit-log", auditFile], {
      env,
      elicit: APPROVE,
    });
    const shown: Array<{ what: string; shown: string }> = [];
    try {
      const calls: Array<Promise<unknown>> = [];
      for (const kind of KINDS) {
        for (const scenario of ["ok", "text", "e400", "e401", "e404", "e500", "mismatch", "redirect", "slow"]) {
          calls.push(
            server.client
              .callTool({ name: `get_${kind}`, arguments: { scenario } })
              .then((r) => shown.push({ what: `get_${kind} ${scenario}`, shown: JSON.stringify(r) })),
          );
        }
        calls.push(
          server.client
            .callTool({ name: `delete_${kind}`, arguments: { scenario: "e500" } })
            .then((r) => shown.push({ what: `delete_${kind} e500`, shown: JSON.stringify(r) })),
        );
      }
      await Promise.all(calls);
    } finally {
      await server.close();
    }
    expect(shown).toHaveLength(KINDS.length * 10);
    expect(leaking(shown)).toEqual({});
    expect(server.asked).toHaveLength(KINDS.length);
    for (const message of server.asked) expectNoLeak("serve elicitation", message);
    expect(server.stderr()).toContain("over stdio");
    expectNoLeak("serve stderr", server.stderr());
    const lines = readFileSync(auditFile, "utf8").trim().split("\n");
    expect(lines).toHaveLength(KINDS.length * 10);
    expectNoLeak("audit log file", lines.join("\n"));
    expect(elsewhere.requests).toEqual([]);
  });

  it("`call`, dry run and real, success and failure, with --audit-log -: stdout and stderr never show it", async () => {
    const before = { api: api.requests.length, tokens: token.requests.length };
    const dryRuns = await Promise.all(
      KINDS.map((kind) => runCli(["call", spec, `get_${kind}`, "--args", '{"scenario":"ok"}', "--dry-run"], { env })),
    );
    // A dry run sends nothing: not to the API, and not the client secret to the token endpoint either.
    expect(api.requests.length).toBe(before.api);
    for (const [i, run] of dryRuns.entries()) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("Would send");
      expect(run.stdout).toContain(`/v1/${KINDS[i]}/ok`);
      expectNoLeak(`call --dry-run get_${KINDS[i]}`, run.stdout + run.stderr);
    }
    expect(dryRuns[KINDS.indexOf("query")]!.stdout).toContain("api_key=****");
    expect(dryRuns[KINDS.indexOf("basic")]!.stdout).toContain("authorization: Basic ****");
    const dryRunTokenRequests = token.requests.length - before.tokens;

    // Real calls: a success, and for each kind a failure whose body echoes the request.
    const cases: Array<[string, string]> = [
      ["get_basic", "ok"],
      ["get_header", "e500"],
      ["get_query", "mismatch"],
      ["get_bearer", "e404"],
      ["get_basic", "e401"],
      ["delete_oauth", "e500"],
      ["get_oauth", "text"],
    ];
    const runs = await Promise.all(
      cases.map(([tool, scenario]) =>
        runCli(["call", spec, tool, "--args", JSON.stringify({ scenario }), "--audit-log", "-"], { env }).then(
          (run) => ({ what: `${tool} ${scenario}`, run }),
        ),
      ),
    );
    for (const { what, run } of runs) {
      expect(run.stdout, what).toContain("Result:");
      expect(run.stderr, what).toContain('"outcome"');
      expectNoLeak(`call ${what}`, run.stdout + run.stderr);
    }
    expect(runs[0]!.run.code).toBe(0);
    expect(runs[1]!.run.stdout).toContain("x-api-key: ****");

    // Network error and timeout, from the command line.
    const [down, slow] = await Promise.all([
      runCli(
        [
          "call",
          spec,
          "get_query",
          "--args",
          '{"scenario":"ok"}',
          "--base-url",
          `http://127.0.0.1:${await closedPort()}/v1`,
        ],
        { env },
      ),
      runCli(["call", spec, "get_oauth", "--args", '{"scenario":"slow"}', "--timeout", "300"], { env }),
    ]);
    expect(down.code).toBe(1);
    expect(down.stdout).toContain("ECONNREFUSED");
    expectNoLeak("call (network error)", down.stdout + down.stderr);
    expect(slow.stdout).toContain("no complete response within 300 ms");
    expectNoLeak("call (timeout)", slow.stdout + slow.stderr);
    expect(dryRunTokenRequests, "token requests made by `call --dry-run get_oauth`").toBe(0);
  });

  it("`inspect` (text and --json) and `validate` never show it", async () => {
    const runs = await Promise.all([
      runCli(["inspect", spec], { env }),
      runCli(["inspect", spec, "--json"], { env }),
      runCli(["validate", spec], { env }),
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expectNoLeak("inspect/validate", run.stdout + run.stderr);
    }
    expect(runs[0]!.stdout).toContain("get_oauth");
    expect(JSON.parse(runs[1]!.stdout)).toBeTypeOf("object");
  });
});
