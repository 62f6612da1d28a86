// The end-to-end tests' shared setup: the fixture API, the credentials handed to the engine, and an in-process MCP
// server (createMcpServer + Engine) reached by the SDK's real Client over InMemoryTransport.

import type { Unsettable } from "./fixtures.js";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import type { EngineOptions } from "../../src/runtime/engine-options.js";
import { parsePolicies } from "../../src/runtime/approvals/policy.js";
import { createMcpServer } from "../../src/server/mcp.js";

export const WIRE_FIXTURE = fileURLToPath(new URL("../fixtures/e2e/wire.openapi.yaml", import.meta.url));

/** Credentials by the naming convention; each value is distinctive, so a leak is easy to find. */
export const SECRETS = {
  API_KEY_HEADERKEY: "hk-secret-5f1e",
  API_KEY_QUERYKEY: "qk/secret=9a7c",
  API_KEY_COOKIEKEY: "ck-secret-33b0",
  BEARER_TOKEN_BEARERAUTH: "bt-secret-c4d2",
  BASIC_USERNAME_BASICAUTH: "alice",
  BASIC_PASSWORD_BASICAUTH: "pw:secret-77e1",
} as const;

/** Every form a secret could take on the wire or in a message. */
export function secretForms(): string[] {
  const values = Object.values(SECRETS);
  const basic = Buffer.from(`${SECRETS.BASIC_USERNAME_BASICAUTH}:${SECRETS.BASIC_PASSWORD_BASICAUTH}`).toString(
    "base64",
  );
  return [
    ...values.filter((v) => v !== "alice"),
    ...values.map(encodeURIComponent).filter((v) => v !== "alice"),
    basic,
  ];
}

export interface Connected {
  client: Client;
  engine: Engine;
  catalog: Catalog;
  close(): Promise<void>;
}

const catalogs = new Map<string, Promise<Catalog>>();

/** The fixture's catalog with its base URL pointing at `baseUrl` (loaded once per base URL). */
export function wireCatalog(baseUrl: string): Promise<Catalog> {
  let catalog = catalogs.get(baseUrl);
  if (!catalog) {
    catalog = loadCatalog(WIRE_FIXTURE, { baseUrl });
    catalogs.set(baseUrl, catalog);
  }
  return catalog;
}

/** A client connected in process to an MCP server whose engine serves the fixture against `baseUrl`. */
export async function connectInProcess({
  baseUrl,
  engine: options = {},
}: {
  baseUrl: string;
  engine?: Unsettable<EngineOptions>;
}): Promise<Connected> {
  // An option given as undefined takes the engine's default (the spread unsets this setup's own).
  const catalog = await wireCatalog(baseUrl);
  // These tests are about what goes over the wire; the approval gate (destructive=approve by default) has its own.
  const policies = parsePolicies(["destructive=allow"], []);
  const engine = new Engine({
    catalog,
    env: { ...SECRETS },
    retryDelaysMs: [5, 10],
    policies,
    ...(options as Partial<EngineOptions>),
  });
  const server = createMcpServer({ provider: engine, name: "e2e", version: "1.0.0", log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "e2e-client", version: "0.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  // The SDK client checks structuredContent against output schemas it has seen in tools/list, as a host would.
  await client.listTools();
  return {
    client,
    engine,
    catalog,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export interface CallResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string; resource?: Record<string, unknown> }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Calls a tool and returns the result in a shape tests can read. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { signal?: AbortSignal } = {},
): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as CallResult;
}

/** The text of a result's text blocks, joined. */
export function textOf(result: CallResult): string {
  return result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
