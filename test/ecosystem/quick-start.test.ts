// The README's quick start, as a new user runs it: a fresh clone, the first line exactly as written (install, build,
// start the example), then a real MCP client connects to the URL it prints, lists the tools and calls one. The
// second line (`npm test`) is what CI itself runs on a clean clone; here it is checked to be the command CI runs.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { REPOSITORY } from "../support/generated.js";

/** The commands of the README's quick start block, comments dropped. */
function quickStart(): string[] {
  const readme = readFileSync(join(REPOSITORY, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const parent = mkdtempSync(join(tmpdir(), "quick-start-"));
const clone = join(parent, "openapi-mcp");
// The clone's node_modules is large (the spec corpus): never left behind.
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe("the README's quick start", () => {
  it("has two lines: install and run the example, then the tests CI runs", () => {
    const lines = quickStart();
    expect(lines).toEqual(["npm install && npm start", "npm test"]);
    expect(readFileSync(join(REPOSITORY, ".ci/run"), "utf8")).toMatch(/^npm test$/m);
  });

  it("works from a fresh clone: a client connects to the printed URL, lists the tools and calls one", async () => {
    execFileSync("git", ["clone", "--quiet", REPOSITORY, clone]);
    const port = await freePort();
    const child = spawn("sh", ["-c", quickStart()[0]!], {
      cwd: clone,
      env: { ...process.env, PORT: String(port) },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no MCP URL printed in 180 s:\n${output}`)), 180_000);
        const check = (): void => {
          const found = /serving \d+ tools? at (http:\/\/\S+\/mcp)/.exec(output)?.[1];
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        child.stdout.on("data", check);
        child.stderr.on("data", check);
        child.on("exit", (code) => reject(new Error(`exited with ${code} before serving:\n${output}`)));
      });
      expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
      const client = new Client({ name: "quick-start", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("listPets");
      const result = (await client.callTool({ name: "listPets", arguments: { limit: 1 } })) as {
        isError?: boolean;
        structuredContent?: { result: unknown[] };
      };
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent?.result).toHaveLength(1);
      await client.close();
    } finally {
      // npm start runs the example API and the server as children: stop the whole group.
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    }
  }, 240_000);
});
