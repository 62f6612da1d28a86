// tools/list in pages: a listing past MAX_PAGE_BYTES comes in pages the SDK client follows with `nextCursor`
// (Microsoft Graph's 100 MB listing closed the client's stdio connection; bench/listing-pages.mjs lists Graph
// itself). Here a generated spec of 1,500 operations (≈ 6 MB listed) stands in for it.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { DynamicProvider } from "../../src/runtime/modes/dynamic.js";
import { Engine } from "../../src/runtime/engine.js";
import type { ToolProvider } from "../../src/runtime/types.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { MAX_PAGE_BYTES } from "../../src/server/pages.js";

const OPERATIONS = 1500;

/** An API whose listing is about 6 MB: each operation has a 4,000-character description. */
function largeSpec(): object {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < OPERATIONS; i++) {
    paths[`/things/${i}`] = {
      get: {
        operationId: `getThing${i}`,
        summary: `Get thing ${i}`,
        description: `Thing ${i}. ${"Lorem ipsum dolor sit amet. ".repeat(143)}`,
        parameters: [{ name: "fields", in: "query", schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Large", version: "1" },
    servers: [{ url: "https://large.example.com" }],
    paths,
  };
}

let dir: string;
let catalog: Catalog;
const open: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "openapi-mcp-pages-"));
  writeFileSync(join(dir, "large.json"), JSON.stringify(largeSpec()));
  catalog = await loadCatalog(join(dir, "large.json"));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function connect(provider: ToolProvider = new Engine({ catalog, env: {} })): Promise<Client> {
  const server = createMcpServer({ provider, name: "pages", version: "1.0.0", log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "pages-client", version: "0.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

/** Every page, following cursors. */
async function pages(
  client: Client,
): Promise<Array<{ tools: Array<{ name: string }>; nextCursor?: string | undefined }>> {
  const all = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    all.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}

describe("paged tools/list", () => {
  it("lists every tool through the SDK client in pages of at most MAX_PAGE_BYTES", async () => {
    const listed = await pages(await connect());
    expect(listed.length).toBeGreaterThan(1);
    for (const page of listed)
      expect(Buffer.byteLength(JSON.stringify(page.tools))).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    const names = listed.flatMap((page) => page.tools.map((tool) => tool.name));
    expect(names).toEqual(catalog.tools.map((tool) => tool.name));
  });

  it("gives the same cursors on every listing, from every server of the same tools", async () => {
    const cursors = async (client: Client) => (await pages(client)).map((page) => page.nextCursor);
    const first = await cursors(await connect());
    expect(await cursors(await connect())).toEqual(first);
    // A cursor from another server of the same tools (a restart, another HTTP session) names the same page.
    const client = await connect();
    const second = await client.listTools({ cursor: first[0]! });
    expect(second.tools[0]!.name).toBe((await pages(await connect()))[1]!.tools[0]!.name);
  });

  it("refuses a cursor it did not give out with invalid params", async () => {
    const client = await connect();
    const { nextCursor } = await client.listTools();
    const small = await loadCatalog(join(dir, "large.json"), { include: ["path:/things/1*"] });
    for (const cursor of ["nonsense", "", Buffer.from("999999.000000000000").toString("base64url"), `${nextCursor}x`]) {
      const error = await client.listTools({ cursor }).catch((e: unknown) => e);
      expect(error, cursor).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    }
    // A cursor of this listing means nothing to a server listing other tools.
    const other = await connect(new Engine({ catalog: small, env: {} }));
    await expect(other.listTools({ cursor: nextCursor! })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it("keeps dynamic mode's listing in one small page", async () => {
    const engine = new Engine({ catalog, env: {} });
    const listed = await pages(await connect(new DynamicProvider({ engine, catalog })));
    expect(listed).toHaveLength(1);
    expect(listed[0]!.tools.map((tool) => tool.name)).toEqual(["search_tools", "describe_tool", "call_tool"]);
  });
});
