// A generated server signs users in as `serve` does: built from the same settings (credentials.<scheme>.perUser.
// signIn), it serves the callback on its HTTP listener, a 2025-11-25 client following the URL it elicits signs in
// (confirming on the callback's page whom the account acts for), and the call goes out with that user's own token.
// The provider and the API are real servers on loopback.

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { ElicitRequestURLParams } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { generateProject } from "../../src/generate/index.js";
import { loadCatalog } from "../../src/load/index.js";
import { CLIENT_ID, CLIENT_SECRET, follow, startSignInProvider } from "../server/sign-in-provider.js";
import { linkDependencies, temporaryProjectDir, typecheck } from "../support/generated.js";
import { json, Upstream } from "../support/upstream.js";

const TOKEN = "generated-alice-token-0123456789abcdef";
let project: string;
let api: Upstream;

beforeAll(async () => {
  api = await Upstream.start();
  api.on("GET", "/me", json({ login: "octo" }));
  project = temporaryProjectDir("sign-in");
  const spec = join(project, "..", "me.json");
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Me", version: "1" },
      servers: [{ url: api.url }],
      components: {
        securitySchemes: {
          octo: {
            type: "oauth2",
            flows: {
              authorizationCode: {
                authorizationUrl: "https://id.invalid/a",
                tokenUrl: "https://id.invalid/t",
                scopes: {},
              },
            },
          },
        },
      },
      security: [{ octo: [] }],
      paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
    }),
  );
  generateProject({ catalog: await loadCatalog(spec), out: project, generator: "openapi-mcp test" });
  linkDependencies(project);
  expect(typecheck(project)).toBe("");
}, 120_000);
afterAll(() => api?.close());

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The generated server over HTTP; resolves once it says it is serving. */
async function startGenerated(port: number, settings: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [join(project, "dist/index.js"), "--transport", "http", "--port", String(port), "--config", settings],
    {
      env: {
        PATH: process.env.PATH ?? "",
        MCP_AUTH_TOKEN_ENV: "MCP_TOKENS",
        MCP_TOKENS: TOKEN,
        OPENAPI_MCP_TOKEN_KEY: randomBytes(32).toString("base64"),
        SIGN_IN_SECRET: CLIENT_SECRET,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  onTestFinished(() => void child.kill());
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes("serving")) resolve();
    });
    child.on("exit", () => reject(new Error(`the generated server exited: ${stderr}`)));
  });
  return child;
}

it("signs a user in and calls with their own token", async () => {
  const provider = await startSignInProvider();
  const port = await freePort();
  const settings = join(project, "settings.json");
  writeFileSync(
    settings,
    JSON.stringify({
      tokenStore: { file: join(project, "state", "tokens.json") },
      credentials: {
        octo: {
          perUser: {
            signIn: {
              clientId: CLIENT_ID,
              clientSecret: "${SIGN_IN_SECRET}",
              authorizationUrl: `${provider.url}/authorize`,
              tokenUrl: `${provider.url}/token`,
              redirectUrl: `http://127.0.0.1:${port}/oauth/callback`,
            },
          },
        },
      },
    }),
  );
  await startGenerated(port, settings);
  const client = new Client({ name: "legacy", version: "0.0.0" }, { capabilities: { elicitation: { url: {} } } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const { url } = request.params as ElicitRequestURLParams;
    asked.push(url);
    // The generated server asks the person to confirm whom the account acts for before it keeps anything.
    const followed = await follow(url);
    expect(followed.page).toMatch(/<title>Connect user-a to \S+\?<\/title>/);
    expect(followed.status).toBe(200);
    expect(followed.text).toMatch(/^Signed in to octo for \S+\. /);
    return { action: "accept" };
  });
  const headers = { authorization: `Bearer ${TOKEN}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers } }),
  );
  onTestFinished(() => client.close());
  const result = (await client.callTool({ name: "getMe", arguments: {} })) as { isError?: boolean };
  expect(result.isError).toBeFalsy();
  expect(asked).toHaveLength(1);
  expect(api.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${provider.issued.access[0]}`]);
}, 60_000);
