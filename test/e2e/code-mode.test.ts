// Code mode end to end: the SDK's real Client against our MCP binding serving a CodeProvider over the real engine
// and the real sandbox, and a real upstream on 127.0.0.1. What a model sees up front, what search and describe give
// it, and that each `api.<tool>(args)` in a script is a direct call in every respect: the request, the outcome,
// validation, approval, policy, rate limits, masking and the audit line. The same calls go to a server in tools
// mode for comparison.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { memoryAuditLog } from "../../src/runtime/audit/audit.js";
import { CodeProvider } from "../../src/runtime/modes/code-mode.js";
import { DynamicProvider } from "../../src/runtime/modes/dynamic.js";
import { Engine } from "../../src/runtime/engine.js";
import { parsePolicies } from "../../src/runtime/approvals/policy.js";
import type { ToolProvider } from "../../src/runtime/types.js";
import { serve } from "../../src/app/serve.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { WIRE_SCENARIOS } from "../generate/parity-scenarios.js";
import { type CallResult, SECRETS, secretForms, textOf, WIRE_FIXTURE, wireCatalog } from "../support/e2e.js";
import { json, type RecordedRequest, type Reply, status, Upstream } from "../support/upstream.js";

const GITHUB = "node_modules/@octokit/openapi/generated/api.github.com.json";
/** ≤ 300 tokens at four bytes a token, whatever the API's size. */
const MAX_LIST_BYTES = 1200;

let upstream: Upstream;
const open: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  upstream = await Upstream.start();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  upstream.reset();
});
afterAll(() => upstream.close());

type Elicit = (request: ElicitRequest) => Promise<ElicitResult>;

async function client(provider: ToolProvider, elicit?: Elicit): Promise<Client> {
  const server = createMcpServer({ provider, name: "code-test", version: "1.0.0", log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const connected = new Client(
    { name: "test-client", version: "0.0.0" },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (elicit) connected.setRequestHandler(ElicitRequestSchema, (request) => elicit(request));
  await server.connect(serverSide);
  await connected.connect(clientSide);
  open.push(connected, server);
  return connected;
}

/** A client in code mode and one in tools mode, over one engine each, serving the wire fixture. */
async function servers({
  policies = [],
  elicit,
  options = {},
  catalog: given,
}: {
  policies?: string[] | ReturnType<typeof parsePolicies>;
  elicit?: Elicit;
  options?: Partial<ConstructorParameters<typeof Engine>[0]>;
  catalog?: Catalog;
} = {}) {
  const catalog = given ?? (await wireCatalog(`${upstream.url}/v1`));
  const start = () => {
    const audit = memoryAuditLog();
    const names = catalog.tools.map((t) => t.name);
    const parsed = Array.isArray(policies) ? parsePolicies(policies, names) : policies;
    return { audit, engine: new Engine({ catalog, env: { ...SECRETS }, policies: parsed, audit, ...options }) };
  };
  const code = start();
  const direct = start();
  return {
    catalog,
    code: { ...code, client: await client(new CodeProvider({ engine: code.engine, catalog }), elicit) },
    direct: { ...direct, client: await client(direct.engine, elicit) },
  };
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallResult;
const execute = (c: Client, code: string) => call(c, "execute", { code });
/** An execute result's JSON. */
const outcome = (result: CallResult) => JSON.parse(textOf(result)) as Record<string, unknown>;
/** A script calling one tool, catching its error as the value `{ ok: false, message }`. */
const oneCall = (tool: string, args: unknown) =>
  `try { return { ok: true, value: await api[${JSON.stringify(tool)}](${JSON.stringify(args)}) }; } catch (e) { return { ok: false, message: e.message }; }`;
const listBytes = (tools: unknown[]) => Buffer.byteLength(JSON.stringify({ tools }));
/** A request as the upstream saw it; multipart boundaries and each request's own span id are random by design. */
function comparable(request: RecordedRequest): Record<string, unknown> {
  const boundary = /boundary=([^;\s]+)/.exec(request.headers["content-type"] ?? "")?.[1];
  const scrub = (text: string): string =>
    (boundary ? text.replaceAll(boundary, "BOUNDARY") : text).replace(/^(00-[0-9a-f]{32}-)[0-9a-f]{16}(-)/, "$1SPAN$2");
  return {
    method: request.method,
    url: request.url,
    headers: request.rawHeaders.map(scrub),
    body: scrub(request.body.toString("latin1")),
  };
}

/** What a script sees of a direct call's result: its error text, or its structured content or parsed text. */
function asScriptSees(result: CallResult, wrapped: boolean): unknown {
  const text = textOf(result);
  if (result.isError) return { ok: false, message: text };
  if (result.structuredContent !== undefined)
    return { ok: true, value: wrapped ? result.structuredContent.result : result.structuredContent };
  if (result.content.length === 1 && result.content[0]!.type === "text") {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: true, value: text };
    }
  }
  return { ok: true, value: result.content };
}

describe("what code mode lists", () => {
  it("exactly search_tools, describe_tools and execute, within 300 tokens, for a small API and for GitHub", async () => {
    const { code } = await servers();
    const { tools } = await code.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "describe_tools", "execute"]);
    expect(listBytes(tools)).toBeLessThanOrEqual(MAX_LIST_BYTES);
    // execute can reach a DELETE: a client must not take it for read-only.
    expect(tools[2]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const catalog = await loadCatalog(GITHUB);
    const engine = new Engine({ catalog, env: {} });
    const github = (await (await client(new CodeProvider({ engine, catalog }))).listTools()).tools;
    expect(github.map((t) => t.name)).toEqual(["search_tools", "describe_tools", "execute"]);
    expect(listBytes(github)).toBeLessThanOrEqual(MAX_LIST_BYTES);
  }, 30_000);
});

describe("search_tools and describe_tools", () => {
  it("search_tools finds what dynamic mode's finds, in the same order", async () => {
    const { code, catalog } = await servers();
    const engine = new Engine({ catalog, env: { ...SECRETS } });
    const dynamic = await client(new DynamicProvider({ engine, catalog }));
    for (const query of ["remove a thing", "make a new item", "upload a file", "item"]) {
      const lines = (result: CallResult) => textOf(result).split("\n").slice(0, -1);
      const ours = await call(code.client, "search_tools", { query });
      expect(lines(ours)).toEqual(lines(await call(dynamic, "search_tools", { query })));
      expect(textOf(ours)).toContain("describe_tools");
    }
  });

  it("describe_tools gives TypeScript a script calls: arguments, result type and description", async () => {
    const { code } = await servers();
    const described = await call(code.client, "describe_tools", { names: ["getItem", "getArray"] });
    expect(described.isError).toBeFalsy();
    const text = textOf(described);
    expect(text).toMatch(/^interface Api \{/);
    expect(text).toContain("declare const api: Api;");
    expect(text).toMatch(/ {2}getItem\(args: \{\n[\s\S]*? {4}id: number;[\s\S]*?\}\): Promise<[\s\S]*?>;/);
    expect(text).toContain("GET /items/{id}");
    // A wrapped response (an array) is what the script gets: the array, not `{ result }`.
    expect(text).toMatch(/getArray\(args\?: [\s\S]*?\): Promise<Array</);
  });

  it("describe_tools refuses unknown names (pointing to near ones) and too many at once", async () => {
    const { code } = await servers();
    const unknown = await call(code.client, "describe_tools", { names: ["getItems"] });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("'getItem'");
    const many = await call(code.client, "describe_tools", { names: Array(9).fill("getItem") });
    expect(many.isError).toBe(true);
  });

  it("describes GitHub's tools with each shared type written once, in a bounded answer", async () => {
    const catalog = await loadCatalog(GITHUB);
    const engine = new Engine({ catalog, env: {} });
    const c = await client(new CodeProvider({ engine, catalog }));
    const names = ["repos_get", "issues_list-for-repo", "issues_get", "issues_create", "pulls_list"];
    const text = textOf(await call(c, "describe_tools", { names }));
    expect(text).toContain('"issues_list-for-repo"(args: {');
    expect(text.match(/^type SimpleUser = /gm)).toHaveLength(1);
    expect(text.length).toBeLessThan(60_000);
  }, 30_000);
});

describe("execute: errors the model can act on, and limits from the options", () => {
  it("a syntax error says where, in the script as written; nothing is sent", async () => {
    const { code } = await servers();
    const result = await execute(code.client, `const a = 1;\nreturn a +;`);
    expect(result.isError).toBe(true);
    expect(outcome(result).error).toMatchObject({ kind: "syntax", line: 2 });
    expect(upstream.requests).toHaveLength(0);
  });

  it("settings scriptMaxCalls reaches the sandbox through serve: the run ends naming the limit and the calls made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "code-mode-"));
    const config = join(dir, "settings.json");
    writeFileSync(config, JSON.stringify({ scriptMaxCalls: 2 }));
    const running = await serve(WIRE_FIXTURE, {
      transport: "http",
      port: 0,
      baseUrl: `${upstream.url}/v1`,
      env: { ...SECRETS },
      log: () => {},
      mode: "code",
      config,
    });
    open.push(running);
    upstream.on("GET", "/v1/items/7", json({ id: 7, name: "seven" }));
    const c = new Client({ name: "test-client", version: "0.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
    open.push(c);
    const result = await execute(c, `for (let i = 0; i < 3; i++) await api.getItem({ id: 7 }); return "all three";`);
    expect(result.isError).toBe(true);
    const said = outcome(result);
    expect(said.error).toMatchObject({ kind: "limit", limit: "maxApiCalls" });
    expect(said.calls).toEqual(["getItem ×2"]);
    expect(upstream.requests).toHaveLength(2);
  });
});

describe("execute: a script's api calls are direct calls", () => {
  it("runs a script: value, logs, calls; the audit names the real tool, via execute, with the script's digest", async () => {
    const { code } = await servers();
    upstream.on("GET", "/v1/items/7", json({ id: 7, name: "seven" }));
    upstream.on("GET", "/v1/items/8", json({ id: 8, name: "eight" }));
    const script = `const [a, b] = await Promise.all([api.getItem({ id: 7 }), api.getItem({ id: 8 })]);
console.log("got", a.name);
return a.name + " and " + b.name;`;
    const result = await execute(code.client, script);
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(outcome(result)).toEqual({ value: "seven and eight", logs: ["got seven"], calls: ["getItem ×2"] });
    const lines = code.audit.records;
    expect(lines.map((r) => [r.tool, r.outcome, r.via])).toEqual([
      ["getItem", "ok", "execute"],
      ["getItem", "ok", "execute"],
    ]);
    expect(lines[0]!.script).toMatch(/^[0-9a-f]{12}$/);
    expect(lines[1]!.script).toBe(lines[0]!.script);
  });

  it("sends the same requests and gives the same outcome as a direct call for every wire case", async () => {
    const options = { maxResponseBytes: 4096, timeoutMs: 1500 };
    const { code, direct, catalog } = await servers({ policies: ["putItem=deny"], options });
    const timeless = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replace(/Try again in \d+ (?:ms|s)\./g, "Try again in …")) as unknown;
    let compared = 0;
    for (const scenario of WIRE_SCENARIOS(upstream)) {
      // Protocol errors (an unknown tool) and hidden tools do not exist inside a script; see the tests below.
      if (scenario.expect.outcome === "protocol" || scenario.tool === "putItem") continue;
      // A trace context given with execute is each of its calls' parent, as with a direct call.
      const meta = scenario.meta ? { _meta: scenario.meta } : {};
      const play = async (run: () => Promise<unknown>) => {
        upstream.reset();
        for (const route of scenario.routes ?? []) upstream.on(route.method, route.path, ...route.replies);
        const value = await run();
        await Promise.all(upstream.requests.map((r) => r.settled));
        const sent = upstream.requests.map((r) => JSON.stringify(r.rawHeaders));
        return { value: timeless(value), requests: upstream.requests.map(comparable), sent };
      };
      const wrapped = catalog.tools.find((t) => t.name === scenario.tool)?.outputWrapped === true;
      const viaDirect = await play(async () =>
        asScriptSees(
          (await direct.client.callTool({ name: scenario.tool, arguments: scenario.args, ...meta })) as CallResult,
          wrapped,
        ),
      );
      const viaScript = await play(async () => {
        const code_ = oneCall(scenario.tool, scenario.args);
        const result = (await code.client.callTool({
          name: "execute",
          arguments: { code: code_ },
          ...meta,
        })) as CallResult;
        expect(result.isError, `${scenario.what}: ${textOf(result)}`).toBeFalsy();
        return outcome(result).value;
      });
      expect({ ...viaScript, sent: [] }, scenario.what).toEqual({ ...viaDirect, sent: [] });
      if (scenario.expect.requests !== undefined)
        expect(viaScript.requests.length, scenario.what).toBe(scenario.expect.requests);
      if (scenario.expect.sent)
        for (const headers of viaScript.sent) expect(headers, scenario.what).toMatch(scenario.expect.sent);
      compared++;
    }
    expect(compared).toBeGreaterThan(30);
    // Every call of every script is on the audit log under its own tool's name.
    expect(code.audit.records.every((r) => r.via === "execute" && r.tool !== "execute")).toBe(true);
  }, 120_000);

  it("invalid arguments: the promise rejects with the message a direct call gives, nothing sent", async () => {
    const { code, direct } = await servers();
    const viaDirect = await call(direct.client, "getItem", { id: 0 });
    const result = await execute(code.client, oneCall("getItem", { id: 0 }));
    expect(outcome(result).value).toEqual({ ok: false, message: textOf(viaDirect) });
    expect(textOf(viaDirect)).toMatch(/Invalid arguments for getItem.*id/);
    expect(upstream.requests).toHaveLength(0);
    expect(code.audit.records.map((r) => [r.tool, r.outcome])).toEqual([["getItem", "invalid_arguments"]]);
  });

  it("an uncaught failed call fails the run with its message, saying what was done before", async () => {
    const { code } = await servers();
    upstream.on("GET", "/v1/items/7", json({ id: 7, name: "seven" }));
    const result = await execute(
      code.client,
      `await api.getItem({ id: 7 }); console.log("one"); await api.getItem({ id: 0 });`,
    );
    expect(result.isError).toBe(true);
    const said = outcome(result);
    expect(JSON.stringify(said.error)).toContain("Invalid arguments for getItem");
    expect(said.logs).toEqual(["one"]);
    expect(said.calls).toEqual(["getItem", "getItem (failed)"]);
  });

  it("a hidden tool does not exist in the script; a tool denied but listed is refused as a direct call is", async () => {
    const hidden = await servers({ policies: ["putItem=deny"] });
    const missing = await execute(hidden.code.client, `return typeof api.putItem;`);
    expect(outcome(missing).value).toBe("undefined");
    const catalog = await wireCatalog(`${upstream.url}/v1`);
    const names = catalog.tools.map((t) => t.name);
    const policies = { ...parsePolicies(["putItem=deny"], names), denyMode: "refuse" as const };
    const { code, direct } = await servers({ policies });
    const args = { id: 1, body: { name: "n" } };
    const viaDirect = await call(direct.client, "putItem", args);
    expect(outcome(await execute(code.client, oneCall("putItem", args))).value).toEqual({
      ok: false,
      message: textOf(viaDirect),
    });
    expect(textOf(viaDirect)).toContain("putItem is not allowed on this server (policy putItem=deny)");
    expect(code.audit.records.map((r) => [r.tool, r.outcome])).toEqual([["putItem", "denied"]]);
    expect(upstream.requests).toHaveLength(0);
  });

  it("the rate limit holds across a script's calls as across direct calls", async () => {
    const base = await wireCatalog(`${upstream.url}/v1`);
    const catalog: Catalog = {
      ...base,
      tools: base.tools.map((t) =>
        t.name === "getItem"
          ? { ...t, operation: { ...t.operation, rateLimit: { requests: 2, windowSeconds: 60 } } }
          : t,
      ),
    };
    const { code, direct } = await servers({ catalog });
    upstream.on("GET", "/v1/items/7", json({ id: 7, name: "seven" }));
    const script = `const out = [];
for (let i = 0; i < 3; i++) { try { await api.getItem({ id: 7 }); out.push("ok"); } catch (e) { out.push(e.message); } }
return out;`;
    const values = outcome(await execute(code.client, script)).value as string[];
    const directs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(direct.client, "getItem", { id: 7 });
      directs.push(r.isError ? textOf(r) : "ok");
    }
    const timeless = (list: string[]) => list.map((t) => t.replace(/Try again in \d+ (?:ms|s)\./, "…"));
    expect(timeless(values)).toEqual(timeless(directs));
    expect(values[2]).toContain("getItem was not sent");
    expect(upstream.requests).toHaveLength(4);
  });

  it("asks a person before a destructive call in a script, naming the real tool, and sends only on yes", async () => {
    const asked: string[] = [];
    let answer: ElicitResult = { action: "decline" };
    const { code } = await servers({
      elicit: async (request) => {
        asked.push(request.params.message);
        return answer;
      },
    });
    upstream.on("DELETE", "/v1/things/5", status(204));
    const declined = await execute(code.client, oneCall("deleteThing", { id: 5 }));
    expect(JSON.stringify(outcome(declined).value)).toContain("declined");
    expect(upstream.requests).toHaveLength(0);
    answer = { action: "accept", content: { approve: true } };
    const accepted = await execute(code.client, oneCall("deleteThing", { id: 5 }));
    expect(outcome(accepted).value).toMatchObject({ ok: true });
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["DELETE /v1/things/5"]);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain("Tool: deleteThing");
    expect(code.audit.records.map((r) => [r.tool, r.outcome, r.via])).toEqual([
      ["deleteThing", "not_approved", "execute"],
      ["deleteThing", "ok", "execute"],
    ]);
  });

  it("credentials never reach a script's value, logs or error, even when the API echoes them", async () => {
    const { code } = await servers();
    // The upstream answers with everything it was sent: credentials in headers, query and cookies.
    const echo: Reply = (context) =>
      json({ seen: context.recorded.headers, url: context.recorded.url }, { status: 400 })(context);
    for (const path of ["header", "query", "cookie", "either", "both"])
      upstream.on("GET", new RegExp(`^/v1/secure/${path}`), echo, echo);
    const script = `const out = [];
const calls = { withHeaderKey: {}, withQueryKey: { q: "a" }, withCookieKey: { theme: "dark" }, withBearerOrBasic: {}, withKeyPair: {} };
for (const [name, args] of Object.entries(calls)) {
  try { const r = await api[name](args); console.log(JSON.stringify(r)); out.push(r); }
  catch (e) { console.log(e.message); out.push(e.message); }
}
throw new Error(JSON.stringify(out));`;
    const result = await execute(code.client, script);
    expect(upstream.requests).toHaveLength(5);
    // The secrets did go upstream, and came back in each body; the script saw them masked.
    expect(JSON.stringify(upstream.requests.map((r) => r.headers))).toContain(SECRETS.API_KEY_HEADERKEY);
    expect(outcome(result).logs).toHaveLength(5);
    const text = JSON.stringify(result);
    for (const secret of secretForms()) expect(text).not.toContain(secret);
  });
});
