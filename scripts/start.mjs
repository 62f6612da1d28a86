// `npm start`: the quick start. Starts the bundled example API on loopback (examples/petstore-api.mjs), then
// serves examples/petstore.openapi.yaml as an MCP server over streamable HTTP against it, with the example's
// API key in the environment the way a user would configure a real one. Ctrl-C stops both.

import { spawn } from "node:child_process";
import { EXAMPLE_API_KEY, startPetstoreApi } from "../examples/petstore-api.mjs";

const root = new URL("..", import.meta.url).pathname;
const port = process.env.PORT ?? "3000";
const api = await startPetstoreApi();
const url = `http://127.0.0.1:${port}/mcp`;

console.log(`Example API (in-memory pet shop) on ${api.url}`);
console.log(`MCP server for examples/petstore.openapi.yaml at ${url}\n`);
console.log("Connect a client, for example:");
console.log(`  Claude Code:     claude mcp add --transport http petstore ${url}`);
console.log(`  MCP Inspector:   npx @modelcontextprotocol/inspector   (transport "Streamable HTTP", URL ${url})`);
console.log(`  Try one call:    node dist/cli.js call examples/petstore.openapi.yaml listPets --base-url ${api.url}\n`);

const server = spawn(
  process.execPath,
  [`${root}dist/cli.js`, "serve", `${root}examples/petstore.openapi.yaml`, "--transport", "http", "--port", port, "--base-url", api.url],
  { stdio: "inherit", env: { ...process.env, API_KEY_API_KEY: EXAMPLE_API_KEY } },
);
const stop = () => server.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
server.on("exit", async (code) => {
  await api.close();
  process.exit(code ?? 0);
});
