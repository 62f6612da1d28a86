import { readFileSync } from "node:fs";
const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
const { ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
const tools = readFileSync(process.env.LISTING);
const s = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
const t = new StdioServerTransport();
const send = t.send.bind(t);
t.send = (m) =>
  m.id === 2
    ? new Promise((r) => process.stdout.write(`{"result":{"tools":${tools}},"jsonrpc":"2.0","id":2}\n`, r))
    : send(m);
await s.connect(t);
