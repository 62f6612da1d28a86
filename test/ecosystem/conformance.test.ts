// The official MCP conformance suite (@modelcontextprotocol/conformance, on Node 22 as it requires) against
// `serve --transport http` on the bundled example. Every scenario runs; the baseline lists only those that need the
// reference "everything" server's own tools, resources and prompts, and the suite fails on anything else that
// fails, and on a listed scenario that starts passing.

import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/serve.js";
import { REPOSITORY } from "../support/generated.js";
import { node22 } from "../support/node22.js";

const SUITE = join(REPOSITORY, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BASELINE = join(REPOSITORY, "test/ecosystem/conformance-baseline.yml");

let server: RunningServer;

beforeAll(async () => {
  server = await serve(join(REPOSITORY, "examples/petstore.openapi.yaml"), {
    transport: "http",
    port: 0,
    env: { API_KEY_API_KEY: "conformance-key" },
    log: () => {},
  });
});
afterAll(async () => {
  await server.close();
});

describe("the MCP conformance suite", () => {
  it("passes every scenario that does not need the reference server's own tools, resources or prompts", async () => {
    const node = node22();
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        node,
        [SUITE, "server", "--url", server.url!, "--expected-failures", BASELINE],
        { cwd: mkdtempSync(join(tmpdir(), "conformance-")), encoding: "utf8", maxBuffer: 64 << 20, timeout: 240_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
    const summary = output.slice(output.lastIndexOf("=== SUMMARY ==="));
    expect(code, summary).toBe(0);
    const passed = [...summary.matchAll(/✓ ([\w-]+):/g)].map((m) => m[1]);
    expect(passed).toEqual(
      expect.arrayContaining([
        "server-initialize",
        "ping",
        "tools-list",
        "logging-set-level",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
      ]),
    );
  }, 300_000);
});
