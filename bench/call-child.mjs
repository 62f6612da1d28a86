// The child processes of bench/call.mjs, each in a process of its own so that its work is charged to neither
// client:
//   upstream  the loopback API: answers every request with the same small JSON object (keep-alive), and prints
//             `{"port":N}` once listening; ends when its stdin closes (when bench/call.mjs exits, however).
//   floor-v1  the MCP floor of SDK v1 (@modelcontextprotocol/sdk): its low-level Server over its stdio transport,
//             one tool answering at once with the result `getWidget` gives, no HTTP;
//   floor-v2  the same written against SDK v2 (@modelcontextprotocol/server): its `serveStdio`, which serves both
//             protocol eras from a factory;
//   echo      our binding (dist/server, on SDK v2) over the same instant tool: the floor plus our MCP layer.

import { createServer } from "node:http";

const DATA = { id: 42, name: "widget", price: 9.5, tags: ["blue", "small"] };
const RESULT = () => ({ content: [{ type: "text", text: JSON.stringify(DATA) }], structuredContent: { ...DATA } });
const TOOL = {
  name: "getWidget",
  title: "Fetch one widget by id.",
  description: "Fetch one widget by id.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" }, verbose: { type: "boolean" } },
    required: ["id"],
    additionalProperties: false,
  },
  annotations: {
    title: "getWidget",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
};
const IDENTITY = { name: "floor", version: "0.0.0" };
const mode = process.argv[2];

if (mode === "upstream") {
  const body = Buffer.from(JSON.stringify(DATA));
  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  });
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
} else if (mode === "floor-v1") {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const server = new Server(IDENTITY, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async () => RESULT());
  await server.connect(new StdioServerTransport());
} else if (mode === "floor-v2") {
  const { Server } = await import("@modelcontextprotocol/server");
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  serveStdio(() => {
    const server = new Server(IDENTITY, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({ tools: [TOOL] }));
    server.setRequestHandler("tools/call", async () => RESULT());
    return server;
  });
} else if (mode === "echo") {
  const { serveStdio } = await import("../dist/server/stdio.js");
  const provider = { listTools: () => [TOOL], hasTool: (name) => name === TOOL.name, callTool: async () => RESULT() };
  const handle = await serveStdio({ provider, name: "echo", version: "0.0.0" });
  await handle.closed;
} else {
  process.stderr.write("usage: call-child.mjs upstream|floor-v1|floor-v2|echo\n");
  process.exitCode = 2;
}
