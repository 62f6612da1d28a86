// One worker of bench/first-contact.mjs: a spec served the way a new user first meets it, with no credential
// variables set. It sets up the engine as `serve` does, lists every tool through the MCP SDK's real Client
// (following cursors) and counts what the client prints while doing it; then `call --dry-run` of one tool, with
// arguments made from its input schema, still without credentials.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { callTool, isUserError } from "../dist/index.js";
import { createMcpServer } from "../dist/server/mcp.js";
import { setUpEngine } from "../dist/app/setup.js";
import { sampleArguments } from "./sample-arguments.mjs";

/** No credential variable, and nothing else a user might have exported either. */
const EMPTY_ENV = {};

async function listEveryTool(engine, name) {
  const server = createMcpServer({ provider: engine, name, version: "0.0.0" });
  const client = new Client({ name: "first-contact", version: "0.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  let listed = 0;
  let pages = 0;
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    listed += page.tools.length;
    pages++;
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  return { listed, pages };
}

/** What the SDK client prints while listing: every line counts as a warning a user would see. */
async function countingOutput(run) {
  let lines = 0;
  const saved = { warn: console.warn, error: console.error, log: console.log, write: process.stderr.write };
  const count = (...args) => {
    lines +=
      String(args[0] ?? "")
        .split("\n")
        .filter(Boolean).length || 1;
  };
  console.warn = count;
  console.error = count;
  console.log = count;
  try {
    return { value: await run(), lines };
  } finally {
    Object.assign(console, { warn: saved.warn, error: saved.error, log: saved.log });
  }
}

async function dryRun(file, catalog) {
  const tool = catalog.tools.find((t) => t.operation.security.some((a) => a.schemes.length > 0)) ?? catalog.tools[0];
  if (!tool) return { outcome: "no-tools" };
  const args = sampleArguments({ schema: tool.inputSchema, definitions: catalog.definitions });
  try {
    const report = await callTool(file, { tool: tool.name, args, dryRun: true, env: EMPTY_ENV, log: () => {} });
    if (report.request)
      return { outcome: "request", tool: tool.name, request: report.request.split("\n").slice(0, 4).join("\n") };
    return { outcome: "error-result", tool: tool.name, message: report.result?.content?.[0]?.text?.slice(0, 300) };
  } catch (error) {
    if (isUserError(error))
      return { outcome: "refused", tool: tool.name, code: error.code, message: error.message.slice(0, 300) };
    return { outcome: "crash", tool: tool.name, message: String(error?.stack ?? error).slice(0, 1000) };
  }
}

async function runSpec(file) {
  const started = performance.now();
  const startup = [];
  let setup;
  try {
    setup = await setUpEngine(file, { env: EMPTY_ENV, log: (line) => startup.push(line) });
  } catch (error) {
    const loadMs = performance.now() - started;
    if (isUserError(error))
      return { outcome: "refused", code: error.code, message: error.message.slice(0, 600), loadMs };
    return { outcome: "crash", message: String(error?.stack ?? error).slice(0, 1000), loadMs };
  }
  const loadMs = performance.now() - started;
  const { catalog, engine } = setup;
  const expected = engine.listTools().length;
  try {
    const { value, lines } = await countingOutput(() => listEveryTool(engine, catalog.sources[0]?.title ?? "api"));
    const listMs = performance.now() - started - loadMs;
    return {
      outcome: value.listed === expected ? "listed" : "short",
      tools: catalog.tools.length,
      listed: value.listed,
      expected,
      pages: value.pages,
      clientLines: lines,
      startupLines: startup.length,
      loadMs,
      listMs,
      dryRun: await dryRun(file, catalog),
    };
  } catch (error) {
    return {
      outcome: "list-failed",
      tools: catalog.tools.length,
      message: String(error?.stack ?? error).slice(0, 1000),
      loadMs,
    };
  }
}

process.on("message", async ({ file }) => {
  process.send({ file, result: await runSpec(file) });
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
