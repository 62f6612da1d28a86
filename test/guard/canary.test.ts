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
import { type AuditRecord, memoryAuditLog } from "../../src/runtime/audit.js";
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
  serveOverStdio,
  type TokenEndpoint,
  tempDir,
  textOf,
  tokenEndpoint,
  writeFile,
} from "../support/guard.js";
import { delayed, Upstream } from "../support/upstream.js";

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
    hop: ({ res, recorded }) => void res.writeHead(302, { location: recorded.url.replace("/hop", "/ok"), "content-length": 0 }).end(),
    redirect: ({ res, recorded }) => {
      // Another origin, with the request's own query (and the key in it) carried along, as a careless API would.
      const at = recorded.url.indexOf("?");
      res.writeHead(302, { location: `${elsewhere.url}/steal${at === -1 ? "" : recorded.url.slice(at)}`, "content-length": 0 }).end();
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
      return typeof request.headers.authorization === "string" && token.issued.some((t) => request.headers.authorization === `Bearer ${t}`);
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
    const engine = new Engine({ catalog, env: canaryEnv(), timeoutMs: 2_000, retryDelaysMs: [5, 10], audit });
    connected = await connectProvider(engine, { elicit: APPROVE, log: (line) => logs.push(line) });
    const down = await loadCatalog(spec, { baseUrl: `http://127.0.0.1:${await closedPort()}/v1` });
    unreachable = await connectProvider(new Engine({ catalog: down, env: canaryEnv(), retryDelaysMs: [5], audit }), { elicit: APPROVE, log: (line) => logs.push(line) });

    const calls: Array<Promise<void>> = [];
    const record = (what: string, client: InProcess, name: string, args: Record<string, unknown>): void => {
      calls.push(
        client.client.callTool({ name, arguments: args }).then(
          (result) => void seen.push({ what, shown: JSON.stringify(result), blobs: decodedBlobs(result) }),
          (error: unknown) =>
            void seen.push({ what: `${what} (JSON-RPC error)`, shown: error instanceof McpError ? `${error.code} ${error.message}` : String(error), blobs: "" }),
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
      expect(requests.every((r) => sentCredential(kind, r)), kind).toBe(true);
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
    for (const { what, blobs } of binary) expect(blobs.length, `${what} returned binary content`).toBeGreaterThan(0);
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
    expect(records.find((r) => r.tool === "get_query" && r.url?.includes("/v1/query/ok"))?.url).toContain("api_key=****");
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
      found[scenario] = Array.from({ length: CANARY.length - 7 }, (_, i) => CANARY.slice(i, i + 8)).filter((piece) => text.includes(piece));
    }
    expect(found).toEqual({ cut: [], cutok: [] });
  });
});

describe("the built CLI", () => {
  const env = canaryEnv();

  it("`serve` over stdio: results, prompts, stderr and the --audit-log file never show it", async () => {
    const auditFile = `${temp.dir}/serve-audit.jsonl`;
    const server = await serveOverStdio([spec, "--timeout", "2000", "--audit-log", auditFile], { env, elicit: APPROVE });
    const shown: Array<{ what: string; shown: string }> = [];
    try {
      const calls: Array<Promise<unknown>> = [];
      for (const kind of KINDS) {
        for (const scenario of ["ok", "text", "e400", "e401", "e404", "e500", "mismatch", "redirect", "slow"]) {
          calls.push(server.client.callTool({ name: `get_${kind}`, arguments: { scenario } }).then((r) => shown.push({ what: `get_${kind} ${scenario}`, shown: JSON.stringify(r) })));
        }
        calls.push(server.client.callTool({ name: `delete_${kind}`, arguments: { scenario: "e500" } }).then((r) => shown.push({ what: `delete_${kind} e500`, shown: JSON.stringify(r) })));
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
    const dryRuns = await Promise.all(KINDS.map((kind) => runCli(["call", spec, `get_${kind}`, "--args", '{"scenario":"ok"}', "--dry-run"], { env })));
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
        runCli(["call", spec, tool, "--args", JSON.stringify({ scenario }), "--audit-log", "-"], { env }).then((run) => ({ what: `${tool} ${scenario}`, run })),
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
      runCli(["call", spec, "get_query", "--args", '{"scenario":"ok"}', "--base-url", `http://127.0.0.1:${await closedPort()}/v1`], { env }),
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
