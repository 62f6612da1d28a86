// The official MCP conformance suite (@modelcontextprotocol/conformance, on Node 22 as it requires) against
// `serve --transport http` on the bundled example, in every protocol era the suite covers: the 2026-07-28 and
// 2025-11-25 requirement sets, and the 2025-06-18 scenarios. Every scenario runs. Each era's baseline
// (conformance/<era>.yml) lists only scenarios that need what an API's MCP server does not have; the suite fails on
// anything else that fails and on a listed scenario that starts passing, and this test fails when a check in a
// listed scenario fails for a reason the baseline does not give.

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { REPOSITORY } from "../support/generated.js";
import { node22 } from "../support/node22.js";

const SUITE = join(REPOSITORY, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BASELINES = join(REPOSITORY, "test/ecosystem/conformance");

/** Why a check of a baselined scenario may fail: the thing it needs, as the suite words its absence. */
const BY_DESIGN = [
  // a tool only the reference server has
  /Unknown tool: |Tool '\w+' not found|does not list the diagnostic tool|no tool with x-mcp-header annotations/,
  // what follows from such a tool's absence: the first round never came
  /^Prerequisite failed|^Expected InputRequiredResult|^Not testable: no task was created/,
  // resources, prompts and completions
  /Method not found/,
];
/** The tasks extension, not offered: any of its checks may fail. */
const TASKS_EXTENSION = /^tasks-/;

const ERAS = [
  {
    era: "2026-07-28",
    select: ["--requirements", "2026-07-28"],
    mustPass: ["http-header-validation", "input-required-result-validate-input", "dns-rebinding-protection"],
  },
  {
    era: "2025-11-25",
    select: ["--requirements", "2025-11-25"],
    mustPass: ["server-initialize", "logging-set-level", "server-sse-multiple-streams", "dns-rebinding-protection"],
  },
  { era: "2025-06-18", select: ["--spec-version", "2025-06-18"], mustPass: ["server-initialize", "ping"] },
];

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

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function runSuite(args: string[]): Promise<{ code: number; output: string }> {
  const cwd = mkdtempSync(join(tmpdir(), "conformance-"));
  return new Promise((resolve) => {
    execFile(
      node22(),
      [SUITE, "server", "--url", server.url!, ...args],
      { cwd, encoding: "utf8", maxBuffer: 64 << 20, timeout: 240_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe("the MCP conformance suite", () => {
  it.each(ERAS)(
    "passes every $era scenario an API's server can pass, and fails the others only by design",
    async ({ era, select, mustPass }) => {
      const results = mkdtempSync(join(tmpdir(), "conformance-results-"));
      const baseline = join(BASELINES, `${era}.yml`);
      const { code, output } = await runSuite([...select, "--expected-failures", baseline, "-o", results]);
      const summary = output.slice(output.lastIndexOf("=== SUMMARY ==="));
      expect(code, summary).toBe(0);
      const passed = [...summary.matchAll(/✓ ([\w-]+):/g)].map((m) => m[1]);
      expect(passed).toEqual(expect.arrayContaining(["tools-list", ...mustPass]));

      const unexplained: string[] = [];
      for (const folder of readdirSync(results)) {
        const scenario = folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
        const checks = JSON.parse(readFileSync(join(results, folder, "checks.json"), "utf8")) as Check[];
        for (const check of checks.filter((c) => c.status === "FAILURE")) {
          const why = check.errorMessage ?? "";
          if (TASKS_EXTENSION.test(scenario) || BY_DESIGN.some((reason) => reason.test(why))) continue;
          unexplained.push(`${scenario} / ${check.id}: ${why}`);
        }
      }
      expect(unexplained).toEqual([]);
    },
    300_000,
  );
});
