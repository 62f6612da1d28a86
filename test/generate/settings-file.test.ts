// A generated server reads a settings file (--config, MCP_CONFIG) as `openapi-mcp serve --config` does: its options,
// policies and credential values apply, the command line and the environment win over it, a broken file is refused
// at its line and column, and settings that shape the built-in tools are refused with what to do instead.

import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateProject } from "../../src/generate/index.js";
import { loadCatalog } from "../../src/load/index.js";
import { linkDependencies, REPOSITORY, temporaryProjectDir, typecheck } from "../support/generated.js";
import { json, Upstream } from "../support/upstream.js";

const KEY = "settings-file-key-4711";
let project: string;
let api: Upstream;

beforeAll(async () => {
  project = temporaryProjectDir("settings");
  generateProject({
    catalog: await loadCatalog(join(REPOSITORY, "examples/petstore.openapi.yaml")),
    out: project,
    generator: "openapi-mcp test",
  });
  linkDependencies(project);
  expect(typecheck(project)).toBe("");
  api = await Upstream.start();
  api.on(
    "GET",
    "/v1/pets/7",
    json({ id: 7, name: "Rex", kind: { species: "dog", goodBoy: true }, status: "available" }),
  );
  api.on("GET", "/v1/pets", json([]));
}, 120_000);

afterAll(async () => {
  await api?.close();
});

function settingsFile(name: string, text: string): string {
  const file = join(project, name);
  writeFileSync(file, text);
  return file;
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(project, "dist/index.js"), ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "settings-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(project, "dist/index.js"), ...args],
      { env: { PATH: process.env.PATH ?? "", ...env } },
      (_error, _stdout, stderr) => {
        resolve({ code: child.exitCode, stderr });
      },
    );
    child.stdin?.end();
  });
}

describe("a generated server with --config", () => {
  it("applies the file's base URL, filters, mode, policy and credential values", async () => {
    const config = settingsFile(
      "settings.yaml",
      [
        `baseUrl: ${api.url}/v1`,
        "include: ['op:listPets', 'op:getPet', 'op:deletePet']",
        "mode: dynamic",
        "policy: { deletePet: deny }",
        "credentials:",
        "  api_key: ${PET_KEY}",
        "",
      ].join("\n"),
    );
    const client = await connect(["--config", config], { PET_KEY: KEY });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        "search_tools",
        "describe_tool",
        "call_tool",
      ]);
      const before = api.requests.length;
      const result = await client.callTool({
        name: "call_tool",
        arguments: { name: "getPet", arguments: { petId: 7 } },
      });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const sent = api.requests.slice(before);
      expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v1/pets/7"]);
      // The value came from the file's credentials, through the variable it names, under the scheme's header.
      expect(sent[0]?.headers["x-api-key"]).toBe(KEY);
      const denied = await client.callTool({
        name: "call_tool",
        arguments: { name: "deletePet", arguments: { petId: 7 } },
      });
      expect(denied.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("lets the command line and the environment win over the file (MCP_CONFIG names it)", async () => {
    const config = settingsFile(
      "modes.yaml",
      [
        `baseUrl: ${api.url}/v1`,
        "mode: dynamic",
        "include: ['op:getPet', 'op:listPets', 'op:deletePet']",
        "policy: { getPet: deny, deletePet: deny }",
        "",
      ].join("\n"),
    );
    // The command line's mode and getPet policy win; the file's filter and its deletePet policy still apply.
    const client = await connect(["--mode", "tools", "--policy", "getPet=allow"], { MCP_CONFIG: config });
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["getPet", "listPets"]);
    } finally {
      await client.close();
    }
  });

  it("refuses a broken file at its line and column, exit 1, no stack trace", async () => {
    const config = settingsFile("broken.yaml", ["mode: tools", "timeoutMs: 0", ""].join("\n"));
    const { code, stderr } = await run(["--config", config]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/broken\.yaml:2:\d+ #\/timeoutMs/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses settings that shape the built-in tools, saying to give them when generating", async () => {
    const config = settingsFile("shaping.yaml", ["serverVariables: { region: eu }", ""].join("\n"));
    const { code, stderr } = await run(["--config", config]);
    expect(code).toBe(1);
    expect(stderr).toContain("shaping.yaml#/serverVariables: serverVariables shape the tools");
    expect(stderr).toContain("--server-var");
  });

  it("refuses profiles without a defaultProfile over stdio, as serve does: no caller could ever match", async () => {
    const config = settingsFile(
      "profiles.yaml",
      ["profiles:", "  triage: { match: { sub: bot }, include: ['method:GET'] }", ""].join("\n"),
    );
    const { code, stderr } = await run(["--config", config]);
    expect(code).toBe(1);
    expect(stderr).toContain("profiles without defaultProfile match verified callers only, and stdio has none");
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("keeps today's refusal with --require-credentials (or the file's requireCredentials)", async () => {
    const config = settingsFile("strict.yaml", [`baseUrl: ${api.url}/v1`, "requireCredentials: true", ""].join("\n"));
    for (const args of [
      ["--require-credentials", "--base-url", `${api.url}/v1`],
      ["--config", config],
    ]) {
      const { code, stderr } = await run(args);
      expect(code, args.join(" ")).toBe(1);
      expect(stderr).toContain("API_KEY_API_KEY");
    }
  });

  it("takes a per-user credential mode from the file: forwarded, so a stdio call says to send the header over HTTP", async () => {
    const forwarded = "credentials: { api_key: { perUser: { forwarded: { header: X-Upstream-Key } } } }";
    const config = settingsFile("per-user.yaml", [`baseUrl: ${api.url}/v1`, forwarded, ""].join("\n"));
    const client = await connect(["--config", config], { API_KEY_API_KEY: KEY });
    try {
      const sent = api.requests.length;
      const result = (await client.callTool({ name: "getPet", arguments: { petId: 7 } })) as {
        content: Array<{ text?: string }>;
        isError?: boolean;
      };
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toContain("send the X-Upstream-Key header with requests over HTTP");
      expect(api.requests.length).toBe(sent);
    } finally {
      await client.close();
    }
    const refused = settingsFile("bad-header.yaml", forwarded.replace("X-Upstream-Key", "Cookie").concat("\n"));
    const { code, stderr } = await run(["--config", refused]);
    expect(code).toBe(1);
    expect(stderr).toContain("bad-header.yaml#/credentials/api_key/perUser/forwarded/header: Cookie carries");
  });
});
