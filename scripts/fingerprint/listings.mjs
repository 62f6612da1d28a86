// The listings part of the wire fingerprint: every example and fixture spec (and GitHub's), loaded as the library
// loads it, served in each mode (tools, dynamic, code) by the library's MCP server in process, and listed page by
// page by the SDK's real client. Specs that do not load give their error code instead.

import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const MODES = ["tools", "dynamic", "code"];

export function specFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ya?ml|json)$/.test(name)) found.push(relative(root, path));
    }
  };
  walk(join(root, "examples"));
  walk(join(root, "test/fixtures"));
  found.push("node_modules/@octokit/openapi/generated/api.github.com.json");
  return found;
}

/** One line per spec and mode: `listing <spec> <mode> <sha256>`, or `listing <spec> error <code>`. */
export async function listingLines({ root, lib, server }) {
  const lines = [];
  for (const spec of specFiles(root)) {
    let catalog;
    try {
      catalog = await lib.loadCatalog(join(root, spec), { allowInsecureHttp: true });
    } catch (error) {
      lines.push(`listing ${spec} error ${error?.code ?? error?.name}`);
      continue;
    }
    const engine = new lib.Engine({ catalog, env: {} });
    for (const mode of MODES) {
      const provider = providerOf({ lib, mode, engine, catalog });
      lines.push(`listing ${spec} ${mode} ${sha(JSON.stringify(await listAll({ server, provider })))}`);
    }
  }
  return lines;
}

/**
 * The same through `serve` over HTTP, as a client of the CLI gets it (the listing serialized once, from the cache
 * the second time), with a policy hiding tools: `serve <spec> <mode> <cold|warm> <sha256>`.
 */
export async function serveLines({ lib, temp }) {
  const specs = [
    ["examples/petstore.openapi.yaml", ["deletePet=deny"]],
    ["test/fixtures/e2e/wire.openapi.yaml", ["putItem=deny", "getText=approve"]],
    ["node_modules/@octokit/openapi/generated/api.github.com.json", ["destructive=deny"]],
  ];
  const lines = [];
  for (const [spec, policies] of specs) {
    for (const mode of MODES) {
      for (const pass of ["cold", "warm"]) {
        const running = await lib.serve(spec, {
          transport: "http",
          host: "127.0.0.1",
          port: 0,
          mode,
          policies,
          env: {},
          cacheDir: `${temp}/cache`,
          log: () => {},
        });
        const client = new Client({ name: "fingerprint", version: "0.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
        lines.push(`serve ${spec} ${mode} ${pass} ${sha(JSON.stringify(await pagesOf(client)))}`);
        await client.close();
        await running.close();
      }
    }
  }
  return lines;
}

export function providerOf({ lib, mode, engine, catalog }) {
  if (mode === "dynamic") return new lib.DynamicProvider({ engine, catalog });
  if (mode === "code") return new lib.CodeProvider({ engine, catalog });
  return engine;
}

/** Every page of tools/list as the client gets it. */
async function listAll({ server, provider }) {
  const mcp = server.createMcpServer({ provider, name: "fingerprint", version: "1.0.0", log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "fingerprint", version: "0.0.0" });
  await mcp.connect(serverSide);
  await client.connect(clientSide);
  const pages = await pagesOf(client);
  await client.close();
  await mcp.close();
  return pages;
}

async function pagesOf(client) {
  const pages = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

/** The text's SHA-256; with `--show`, the text itself (to see what differs between two runs). */
export function sha(text) {
  return process.argv.includes("--show") ? text : createHash("sha256").update(text).digest("hex");
}
