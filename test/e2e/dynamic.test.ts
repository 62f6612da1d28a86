// Dynamic mode end to end: the SDK's real Client against our MCP binding serving a DynamicProvider over the real
// engine, and a real upstream on 127.0.0.1. What a model sees up front (three small tools), what search and describe
// give it, and that call_tool is a direct call in every respect: the request, the result, validation, approval,
// policy and the audit log. The same calls go to a server in tools mode for comparison.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { memoryAuditLog } from "../../src/runtime/audit/audit.js";
import { DynamicProvider } from "../../src/runtime/modes/dynamic.js";
import { Engine } from "../../src/runtime/engine.js";
import { parsePolicies } from "../../src/runtime/approvals/policy.js";
import type { ToolProvider } from "../../src/runtime/types.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { WIRE_SCENARIOS } from "../generate/parity-scenarios.js";
import { type CallResult, SECRETS, textOf, wireCatalog } from "../support/e2e.js";
import { json, type RecordedRequest, status, Upstream } from "../support/upstream.js";

const GITHUB = "node_modules/@octokit/openapi/generated/api.github.com.json";
/** ≤ 250 tokens at four bytes a token, whatever the API's size. */
const MAX_LIST_BYTES = 1000;

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
  const server = createMcpServer({ provider, name: "dynamic-test", version: "1.0.0", log: () => {} });
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

/** A client in dynamic mode and one in tools mode, over one engine each, serving the wire fixture. */
async function servers({
  policies = [],
  elicit,
  options = {},
}: {
  policies?: string[];
  elicit?: Elicit;
  options?: Partial<ConstructorParameters<typeof Engine>[0]>;
} = {}) {
  const catalog = await wireCatalog(`${upstream.url}/v1`);
  const start = () => {
    const audit = memoryAuditLog();
    const names = catalog.tools.map((t) => t.name);
    return {
      audit,
      engine: new Engine({ catalog, env: { ...SECRETS }, policies: parsePolicies(policies, names), audit, ...options }),
    };
  };
  const dynamic = start();
  const direct = start();
  return {
    catalog,
    dynamic: { ...dynamic, client: await client(new DynamicProvider({ engine: dynamic.engine, catalog }), elicit) },
    direct: { ...direct, client: await client(direct.engine, elicit) },
  };
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallResult;
const search = (c: Client, query: string, limit?: number) =>
  call(c, "search_tools", { query, ...(limit ? { limit } : {}) });
/** The tool names a search_tools result lists, best first. */
const found = (result: CallResult) => [...textOf(result).matchAll(/^([\w.-]+): /gm)].map((m) => m[1]);
const listBytes = (tools: unknown[]) => Buffer.byteLength(JSON.stringify({ tools }));
/** A request as the upstream saw it; multipart boundaries are random by design. */
function comparable(request: RecordedRequest): Record<string, unknown> {
  const boundary = /boundary=([^;\s]+)/.exec(request.headers["content-type"] ?? "")?.[1];
  const scrub = (text: string): string => (boundary ? text.replaceAll(boundary, "BOUNDARY") : text);
  return {
    method: request.method,
    url: request.url,
    headers: request.rawHeaders.map(scrub),
    body: scrub(request.body.toString("latin1")),
  };
}

describe("what dynamic mode lists", () => {
  it("exactly search_tools, describe_tool and call_tool, within 250 tokens, for a small API", async () => {
    const { dynamic } = await servers();
    const { tools } = await dynamic.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    expect(listBytes(tools)).toBeLessThanOrEqual(MAX_LIST_BYTES);
    // call_tool can reach a DELETE: a client must not take it for read-only.
    expect(tools[2]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it("and the same three within 250 tokens for GitHub's 1,200 operations", async () => {
    const catalog = await loadCatalog(GITHUB);
    const engine = new Engine({ catalog, env: {} });
    const { tools } = await (await client(new DynamicProvider({ engine, catalog }))).listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    expect(listBytes(tools)).toBeLessThanOrEqual(MAX_LIST_BYTES);
    expect(tools[0]!.description).toContain(`(${catalog.tools.length})`);
  }, 30_000);
});

describe("search_tools and describe_tool", () => {
  it("finds tools by what they do, best first, the same every time", async () => {
    const { dynamic } = await servers();
    const deleting = await search(dynamic.client, "remove a thing");
    expect(found(deleting)[0]).toBe("deleteThing");
    expect(textOf(deleting)).toContain("deleteThing: Delete a thing (DELETE /things/{id})");
    expect(found(await search(dynamic.client, "make a new item"))[0]).toBe("createItem");
    expect(found(await search(dynamic.client, "upload a file"))[0]).toBe("multipartBody");
    expect(found(await search(dynamic.client, "item", 2))).toHaveLength(2);
    const again = await servers();
    expect(textOf(await search(again.dynamic.client, "replace an item"))).toBe(
      textOf(await search(dynamic.client, "replace an item")),
    );
  });

  it("says so when nothing matches, and refuses a missing query", async () => {
    const { dynamic } = await servers();
    expect(textOf(await search(dynamic.client, "zebra"))).toMatch(/^No tool matches "zebra"/);
    const missing = await call(dynamic.client, "search_tools", {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("query");
    expect((await search(dynamic.client, "item", 500)).isError).toBe(true);
  });

  it("describe_tool gives the tool's entry exactly as tools mode lists it", async () => {
    const { dynamic, direct } = await servers();
    const listed = (await direct.client.listTools()).tools.find((t) => t.name === "createItem");
    const described = await call(dynamic.client, "describe_tool", { name: "createItem" });
    expect(described.isError).toBeFalsy();
    expect(JSON.parse(textOf(described))).toEqual(listed);
    expect(listed?.inputSchema.properties).toHaveProperty("body");
  });

  it("an unknown name is an error result that points to search_tools and near names", async () => {
    const { dynamic } = await servers();
    for (const tool of ["describe_tool", "call_tool"]) {
      const result = await call(dynamic.client, tool, { name: "getItems" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("search_tools");
      expect(textOf(result)).toContain("'getItem'");
    }
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("call_tool is a direct call", () => {
  it("sends the same request and returns the same result, and the audit names the tool", async () => {
    const { dynamic, direct } = await servers();
    upstream.on("GET", "/v1/items/7", json({ id: 7, name: "seven" }));
    const args = { id: 7, "X-Trace": "t-1" };
    const viaDynamic = await call(dynamic.client, "call_tool", { name: "getItem", arguments: args });
    const viaDirect = await call(direct.client, "getItem", args);
    expect(viaDynamic).toEqual(viaDirect);
    expect(viaDynamic.structuredContent).toEqual({ id: 7, name: "seven" });
    const [first, second] = upstream.requests.map(comparable);
    expect(first).toEqual(second);
    expect(dynamic.audit.records.map((r) => [r.tool, r.outcome])).toEqual([["getItem", "ok"]]);
    expect(dynamic.audit.records[0]!.arguments).toEqual(direct.audit.records[0]!.arguments);
  });

  it("gives the same result as a direct call for every scripted case, guard rails included", async () => {
    const options = { maxResponseBytes: 4096, timeoutMs: 1500 };
    const { dynamic, direct } = await servers({ policies: ["putItem=deny"], options });
    const timeless = (result: CallResult) =>
      JSON.parse(JSON.stringify(result).replace(/Try again in \d+ (?:ms|s)\./g, "Try again in …")) as CallResult;
    for (const scenario of WIRE_SCENARIOS(upstream)) {
      if (scenario.expect.outcome === "protocol" || scenario.tool === "putItem") continue;
      const play = async (run: () => Promise<CallResult>) => {
        upstream.reset();
        for (const route of scenario.routes ?? []) upstream.on(route.method, route.path, ...route.replies);
        const result = await run();
        await Promise.all(upstream.requests.map((r) => r.settled));
        return { result: timeless(result), requests: upstream.requests.map(comparable) };
      };
      const viaDirect = await play(() => call(direct.client, scenario.tool, scenario.args));
      const viaDynamic = await play(() =>
        call(dynamic.client, "call_tool", { name: scenario.tool, arguments: scenario.args }),
      );
      expect(viaDynamic, scenario.what).toEqual(viaDirect);
      if (scenario.expect.requests !== undefined)
        expect(viaDynamic.requests.length, scenario.what).toBe(scenario.expect.requests);
    }
  }, 60_000);

  it("refuses invalid arguments without sending anything", async () => {
    const { dynamic } = await servers();
    const below = await call(dynamic.client, "call_tool", { name: "getItem", arguments: { id: 0 } });
    expect(below.isError).toBe(true);
    expect(textOf(below)).toMatch(/Invalid arguments for getItem.*id/);
    const notObject = await call(dynamic.client, "call_tool", { name: "getItem", arguments: [1] });
    expect(notObject.isError).toBe(true);
    expect(upstream.requests).toHaveLength(0);
    expect(dynamic.audit.records.map((r) => [r.tool, r.outcome])).toEqual([["getItem", "invalid_arguments"]]);
  });

  it("asks a person before a destructive call, naming the real tool, and sends only on yes", async () => {
    const asked: string[] = [];
    let answer: ElicitResult = { action: "decline" };
    const { dynamic } = await servers({
      elicit: async (request) => {
        asked.push(request.params.message);
        return answer;
      },
    });
    upstream.on("DELETE", "/v1/things/5", status(204));
    const declined = await call(dynamic.client, "call_tool", { name: "deleteThing", arguments: { id: 5 } });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain("declined");
    expect(upstream.requests).toHaveLength(0);
    answer = { action: "accept", content: { approve: true } };
    const accepted = await call(dynamic.client, "call_tool", { name: "deleteThing", arguments: { id: 5 } });
    expect(accepted.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["DELETE /v1/things/5"]);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain("Tool: deleteThing");
    expect(dynamic.audit.records.map((r) => r.outcome)).toEqual(["not_approved", "ok"]);
  });

  it("a tool hidden by policy cannot be found, described or called", async () => {
    const { dynamic, direct } = await servers({ policies: ["putItem=deny"] });
    expect(found(await search(dynamic.client, "replace an item", 50))).not.toContain("putItem");
    expect((await direct.client.listTools()).tools.map((t) => t.name)).not.toContain("putItem");
    for (const tool of ["describe_tool", "call_tool"]) {
      const result = await call(dynamic.client, tool, { name: "putItem", arguments: { id: 1, body: { name: "n" } } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("There is no tool named 'putItem'");
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it("a tool denied but listed (deniedTools: refuse) is found, and refused as a direct call is", async () => {
    const catalog: Catalog = await wireCatalog(`${upstream.url}/v1`);
    const policies = {
      ...parsePolicies(
        ["putItem=deny"],
        catalog.tools.map((t) => t.name),
      ),
      denyMode: "refuse" as const,
    };
    const audit = memoryAuditLog();
    const engine = new Engine({ catalog, env: { ...SECRETS }, policies, audit });
    const dynamic = await client(new DynamicProvider({ engine, catalog }));
    expect(found(await search(dynamic, "replace an item"))).toContain("putItem");
    const refused = await call(dynamic, "call_tool", { name: "putItem", arguments: { id: 1, body: { name: "n" } } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("putItem is not allowed on this server (policy putItem=deny)");
    expect(audit.records.map((r) => [r.tool, r.outcome])).toEqual([["putItem", "denied"]]);
    expect(upstream.requests).toHaveLength(0);
  });
});
