// Argument names every client can carry. A parameter named `__proto__` vanished in the SDK client's listing (its
// record check turns it into the prototype), and names outside ^[a-zA-Z0-9_.-]{1,64}$ (`$select`, `filter[status]`)
// make Anthropic's API refuse the whole tools list. Such parameters get a safe argument name while the request
// still says the document's name. Names every object inherits (`constructor`) keep theirs and work when omitted.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import { parsePolicies } from "../../src/runtime/approvals/policy.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { fixture } from "../support/fixtures.js";
import { json, Upstream } from "../support/upstream.js";

/** What Anthropic's API (and Bedrock) accept as a top-level property name of an input schema. */
const CARRIED = /^[a-zA-Z0-9_.-]{1,64}$/;

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

async function connect(file: string): Promise<Client> {
  const catalog = await loadCatalog(fixture(file), { baseUrl: upstream.url });
  const engine = new Engine({ catalog, env: {}, policies: parsePolicies(["write=allow"], []) });
  const server = createMcpServer({ provider: engine, name: "names", version: "1.0.0", log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "names-client", version: "0.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

/** The query of the only request upstream, decoded. */
function query(): URLSearchParams {
  return new URLSearchParams(upstream.only().query);
}

describe("argument names of an OpenAPI document", () => {
  it("lists every parameter under a name the SDK client keeps and Anthropic's API accepts", async () => {
    const client = await connect("openapi30/argument-names.openapi.yaml");
    const [tool] = (await client.listTools()).tools;
    const properties = Object.keys(tool!.inputSchema.properties ?? {});
    expect(properties).toEqual(["id", "proto", "query_select", "select", "filter_status", "constructor", "X_Trace_Id"]);
    for (const name of properties) expect(name).toMatch(CARRIED);
    // Everything required is listed, so a client can send it.
    for (const name of tool!.inputSchema.required ?? []) expect(properties).toContain(name);
  });

  it("sends each argument under the document's name", async () => {
    upstream.on("GET", /^\/items\//, json({ id: "7" }));
    const client = await connect("openapi30/argument-names.openapi.yaml");
    const result = await client.callTool({
      name: "getItem",
      arguments: { id: "7", proto: "p", query_select: "name", select: "all", filter_status: "open" },
    });
    expect(result.isError).toBeFalsy();
    const sent = upstream.only();
    expect(sent.path).toBe("/items/7");
    expect([...query()]).toEqual([
      ["__proto__", "p"],
      ["$select", "name"],
      ["select", "all"],
      ["filter[status]", "open"],
    ]);
  });

  it("takes a parameter named like an inherited property (`constructor`) as it is, given or not", async () => {
    upstream.on("GET", /^\/items\//, json({ id: "7" }));
    const client = await connect("openapi30/argument-names.openapi.yaml");
    const omitted = await client.callTool({ name: "getItem", arguments: { id: "7", proto: "p" } });
    expect(omitted.isError).toBeFalsy();
    expect(query().get("constructor")).toBeNull();
    upstream.reset();
    upstream.on("GET", /^\/items\//, json({ id: "7" }));
    const given = await client.callTool({ name: "getItem", arguments: { id: "7", proto: "p", constructor: "c" } });
    expect(given.isError).toBeFalsy();
    expect(query().get("constructor")).toBe("c");
  });

  it("does not advertise an output schema naming an inherited property, so the client accepts a result without it", async () => {
    upstream.on("GET", /^\/items\//, json({ id: "7" }));
    const client = await connect("openapi30/argument-names.openapi.yaml");
    const [tool] = (await client.listTools()).tools;
    expect(tool!.outputSchema).toBeUndefined();
    const result = await client.callTool({ name: "getItem", arguments: { id: "7", proto: "p" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: "7" });
  });
});

describe("argument names of an action definition", () => {
  it("renames the properties no client can carry and keeps their names in the query and the body", async () => {
    upstream.on("GET", "/things", json({}));
    upstream.on("POST", "/things", json({}));
    const client = await connect("actions/argument-names.actions.yaml");
    const { tools } = await client.listTools();
    const find = tools.find((t) => t.name === "find")!;
    const make = tools.find((t) => t.name === "make")!;
    expect(Object.keys(find.inputSchema.properties ?? {})).toEqual(["top", "constructor"]);
    expect(find.inputSchema.required).toEqual(["top"]);
    expect(Object.keys(make.inputSchema.properties ?? {})).toEqual(["proto", "meta_2", "meta"]);
    expect(make.inputSchema.required).toEqual(["proto"]);

    expect((await client.callTool({ name: "find", arguments: { top: 5 } })).isError).toBeFalsy();
    expect([...query()]).toEqual([["$top", "5"]]);
    upstream.reset();
    upstream.on("POST", "/things", json({}));
    expect(
      (await client.callTool({ name: "make", arguments: { proto: "p", meta_2: { a: 1 }, meta: "m" } })).isError,
    ).toBeFalsy();
    expect(upstream.only().body.toString()).toBe('{"__proto__":"p","$meta":{"a":1},"meta":"m"}');
  });
});
