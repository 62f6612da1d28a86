// The MCP Inspector's command-line mode (`mcp-inspector-cli --cli`), a client nobody here wrote, lists and calls the
// bundled example's tools: over stdio (it starts `openapi-mcp serve` itself) and over streamable HTTP.

import { execFile } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error the example is plain JavaScript
import { EXAMPLE_API_KEY, startExampleApi } from "../../examples/example-api.mjs";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { REPOSITORY } from "../support/generated.js";

const INSPECTOR = join(REPOSITORY, "node_modules/@modelcontextprotocol/inspector-cli/build");
const SPEC = join(REPOSITORY, "examples/petstore.openapi.yaml");

let api: { url: string; close(): Promise<void> };
let server: RunningServer;

beforeAll(async () => {
  api = await startExampleApi();
  server = await serve(SPEC, {
    transport: "http",
    port: 0,
    baseUrl: api.url,
    env: { API_KEY_API_KEY: EXAMPLE_API_KEY },
    log: () => {},
  });
});
afterAll(async () => {
  await server.close();
  await api.close();
});

/** Runs the inspector's CLI mode; its JSON answer is on stdout. */
function inspector(args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // Its cwd is its own build folder: v1.0.3 finds its package.json relative to the working directory.
    execFile(
      process.execPath,
      ["cli.js", "--cli", ...args],
      { cwd: INSPECTOR, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.slice(stdout.indexOf("{"))));
      },
    );
  });
}

const STDIO = [
  "-e",
  `API_KEY_API_KEY=${EXAMPLE_API_KEY}`,
  process.execPath,
  join(REPOSITORY, "dist/cli.js"),
  "serve",
  SPEC,
];

describe("mcp-inspector-cli --cli", () => {
  it("lists the example's tools over stdio", async () => {
    const listed = (await inspector([...STDIO, "--method", "tools/list"])) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toEqual(["listPets", "createPet", "getPet", "deletePet", "placeOrder"]);
  }, 90_000);

  it("calls a tool over stdio against the example API", async () => {
    const result = (await inspector([
      ...STDIO,
      "--base-url",
      api.url,
      "--method",
      "tools/call",
      "--tool-name",
      "listPets",
      "--tool-arg",
      "limit=1",
    ])) as {
      structuredContent: { result: Array<{ name: string }> };
    };
    expect(result.structuredContent.result).toHaveLength(1);
  }, 90_000);

  it("calls a tool over streamable HTTP", async () => {
    const result = (await inspector([
      server.url!,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "getPet",
      "--tool-arg",
      "petId=1",
    ])) as {
      structuredContent: { name: string };
      isError?: boolean;
    };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent.name).toBe("Rex");
  }, 90_000);
});
