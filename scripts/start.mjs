// `npm start [-- <example>]`: the quick start. Starts the bundled example API on loopback
// (examples/example-api.mjs), then serves an example as an MCP server over streamable HTTP against it, with the
// example's API key in the environment the way a user would configure a real one. Ctrl-C stops both.
// The example is examples/petstore.openapi.yaml unless given: `npm start -- examples/widgets.actions.yaml` or
// `npm start -- examples/shop.manifest.yaml` (whose sources point at the example API on port 4010).
// How to connect is printed once the server says it listens: a server that cannot start (a taken port, say) has
// only its own message shown, never a URL nothing answers at.

import { spawn } from "node:child_process";
import { relative, resolve } from "node:path";
import { DEFAULT_PORT, EXAMPLE_API_KEY, startExampleApi } from "../examples/example-api.mjs";

const root = new URL("..", import.meta.url).pathname;
const example = relative(root, resolve(process.argv[2] ?? `${root}examples/petstore.openapi.yaml`));
const port = process.env.PORT ?? "3000";
const manifest = example.endsWith(".manifest.yaml");
// The manifest names the example API's address itself, so then it must be on its usual port.
const apiPort = manifest ? Number(process.env.API_PORT ?? DEFAULT_PORT) : 0;
const api = await startExampleApi({ port: apiPort }).catch((error) => {
  const taken = error.code === "EADDRINUSE";
  console.error(
    `npm start: ${taken ? `port ${apiPort} for the example API is in use; set API_PORT` : `the example API cannot start: ${error.message}`}`,
  );
  process.exit(1);
});
const baseUrl = manifest ? undefined : example.includes("widgets") ? api.widgetsUrl : api.url;

console.log(`Example API on ${api.url} (pets) and ${api.widgetsUrl} (widgets)`);

const server = spawn(
  process.execPath,
  [
    `${root}dist/cli.js`,
    "serve",
    example,
    "--transport",
    "http",
    "--port",
    port,
    ...(baseUrl ? ["--base-url", baseUrl] : []),
  ],
  {
    cwd: root,
    stdio: ["inherit", "inherit", "pipe"],
    // The variables each example reads its API key from (by scheme name, or as its ${VAR} says).
    env: {
      ...process.env,
      API_KEY_API_KEY: EXAMPLE_API_KEY,
      WIDGETS_API_KEY: EXAMPLE_API_KEY,
      PETSTORE_KEY: EXAMPLE_API_KEY,
    },
  },
);
// The server's stderr goes through as it comes; its start line carries the URL it really listens at.
let pending = "";
let announced = false;
server.stderr.on("data", (chunk) => {
  process.stderr.write(chunk);
  if (announced) return;
  pending += chunk.toString();
  const url = /serving \d+ tools? .*?at (http:\/\/\S+\/mcp)/.exec(pending)?.[1];
  if (!url) return;
  announced = true;
  pending = "";
  connectHelp(url);
});

function connectHelp(url) {
  console.log(`\nMCP server for ${example} at ${url}\n`);
  console.log("Connect a client, for example:");
  console.log(`  Claude Code:     claude mcp add --transport http example ${url}`);
  console.log(`  MCP Inspector:   npx @modelcontextprotocol/inspector   (transport "Streamable HTTP", URL ${url})`);
  console.log(
    `  Try one call:    API_KEY_API_KEY=${EXAMPLE_API_KEY} node dist/cli.js call examples/petstore.openapi.yaml listPets --base-url ${api.url}\n`,
  );
}

const stop = () => server.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
server.on("exit", async (code) => {
  await api.close();
  process.exit(code ?? 0);
});
