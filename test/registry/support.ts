// Helpers for the registry tests: a directory of action definitions written as an editor would (temporary file
// renamed over the old), a loopback upstream whose answers say which version of a tool sent the request, and a
// real SDK client that records the tools/list_changed notifications it receives.

import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Upstream } from "../support/upstream.js";

export function registryDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "openapi-mcp-registry-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An action definition whose tools send `GET /v<version>/<tool>` (the upstream echoes the version back). */
export function actions({
  name,
  baseUrl,
  version,
  tools,
}: {
  name: string;
  baseUrl: string;
  version: number;
  tools: string[];
}): string {
  const entries = tools.map(
    (tool) => `  - name: ${tool}
    description: Tool ${tool}, version ${version}.
    method: GET
    path: /v${version}/${tool}
    inputSchema: { type: object, properties: {} }
`,
  );
  return `name: ${name}\nbaseUrl: ${baseUrl}\nactions:\n${entries.join("")}`;
}

/** Written as editors save: a temporary file beside it, renamed over the old. */
export function save({ dir, file, text }: { dir: string; file: string; text: string }): void {
  const temporary = join(dir, `.${file}.swp`);
  writeFileSync(temporary, text);
  renameSync(temporary, join(dir, file));
}

/** Answers `GET /v<n>/<tool>` with `{"version":n,"tool":…}` after `delayMs`. */
export async function versionUpstream({ delayMs = 0 }: { delayMs?: number } = {}): Promise<Upstream> {
  const upstream = await Upstream.start();
  upstream.on("GET", /^\/v\d+\//, async ({ req, res }) => {
    const [, version, tool] = /^\/v(\d+)\/([^/?]+)/.exec(req.url ?? "") ?? [];
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ version: Number(version), tool }));
  });
  return upstream;
}

/** A 2025 session over HTTP, counting the tools/list_changed notifications it gets. */
export async function httpClient(
  url: string,
): Promise<{ client: Client; changes: () => number; changed: () => Promise<void> }> {
  const client = new Client({ name: "registry-test", version: "0.0.0" });
  let count = 0;
  const waiters: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    count++;
    for (const waiter of waiters.splice(0)) waiter();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    changes: () => count,
    changed: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
}

/** The JSON text of a call's result, parsed. */
export function resultJson(result: unknown): { version: number; tool: string } {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return JSON.parse(content[0]!.text) as { version: number; tool: string };
}
