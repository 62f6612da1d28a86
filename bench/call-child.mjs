// The child processes of bench/call.mjs, each in a process of its own so that its work is charged to neither
// client:
//   upstream  the loopback API: answers every request with the same small JSON object (keep-alive), and prints
//             `{"port":N}` once listening; ends when its stdin closes (when bench/call.mjs exits, however).
//   echo      an MCP server over stdio (our binding, dist/server) whose one tool answers at once with the result
//             `getWidget` gives, without any HTTP: the floor of MCP over stdio with the SDK on both ends.

import { createServer } from "node:http";

const DATA = { id: 42, name: "widget", price: 9.5, tags: ["blue", "small"] };
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
} else if (mode === "echo") {
  const { serveStdio } = await import("../dist/server/index.js");
  const tool = {
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
  const provider = {
    listTools: () => [tool],
    hasTool: (name) => name === tool.name,
    callTool: async () => ({ content: [{ type: "text", text: JSON.stringify(DATA) }], structuredContent: { ...DATA } }),
  };
  const handle = await serveStdio({ provider, name: "echo", version: "0.0.0" });
  await handle.closed;
} else {
  process.stderr.write("usage: call-child.mjs upstream|echo\n");
  process.exitCode = 2;
}
