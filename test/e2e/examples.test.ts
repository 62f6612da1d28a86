// Every bundled example runs offline against the bundled example API, as `npm start -- <example>` runs it: the
// OpenAPI document, the custom action definition and the manifest (whose sources name the API's usual port).

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error the example API is plain JavaScript
import { DEFAULT_PORT, EXAMPLE_API_KEY, startExampleApi } from "../../examples/example-api.mjs";
import { serve } from "../../src/app/serve.js";
import { REPOSITORY } from "../support/generated.js";

const ENV = { API_KEY_API_KEY: EXAMPLE_API_KEY, WIDGETS_API_KEY: EXAMPLE_API_KEY, PETSTORE_KEY: EXAMPLE_API_KEY };
let api: { url: string; widgetsUrl: string; close(): Promise<void> };

beforeAll(async () => {
  api = await startExampleApi({ port: DEFAULT_PORT });
});
afterAll(async () => {
  await api.close();
});

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text?: string }> };

/** Serves the example over HTTP, connects a client, runs the calls, closes both. */
async function withExample(
  example: string,
  baseUrl: string | undefined,
  calls: (call: (name: string, args: Record<string, unknown>) => Promise<Result>) => Promise<void>,
): Promise<string[]> {
  const running = await serve(join(REPOSITORY, "examples", example), {
    transport: "http",
    port: 0,
    env: ENV,
    log: () => {},
    ...(baseUrl ? { baseUrl } : {}),
  });
  const client = new Client({ name: "examples", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
    const { tools } = await client.listTools();
    await calls(async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as Result;
      expect(result.isError ?? false, `${name}: ${result.content[0]?.text}`).toBe(false);
      return result;
    });
    return tools.map((t) => t.name);
  } finally {
    await client.close();
    await running.close();
  }
}

describe("the bundled examples, offline", () => {
  it("petstore.openapi.yaml", async () => {
    const names = await withExample("petstore.openapi.yaml", api.url, async (call) => {
      const created = await call("createPet", { body: { name: "Nemo", kind: { species: "cat", indoor: true } } });
      const fetched = await call("getPet", { petId: created.structuredContent?.id });
      expect(fetched.structuredContent?.name).toBe("Nemo");
    });
    expect(names).toEqual(["listPets", "createPet", "getPet", "deletePet", "placeOrder"]);
  });

  it("widgets.actions.yaml", async () => {
    await withExample("widgets.actions.yaml", api.widgetsUrl, async (call) => {
      const created = await call("create_widget", { name: "Gizmo", color: "blue", requestId: "r-1" });
      const found = await call("search_widgets", { q: "giz" });
      expect(found.structuredContent?.result).toEqual([created.structuredContent]);
    });
  });

  it("shop.manifest.yaml (both sources, each at the base URL the manifest names)", async () => {
    const names = await withExample("shop.manifest.yaml", undefined, async (call) => {
      await call("pets__listPets", { limit: 1 });
      await call("widgets__get_widget", { widgetId: "w1" });
    });
    expect(names).toContain("widgets__search_widgets");
  });
});
