// First contact: `--help` of the program and of every command ends with examples, and the first example of each
// read-only command runs as printed; loading a large document says what it is doing on stderr.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GITHUB_SPEC } from "../../bench/corpus-check.mjs";
import { runCli } from "../support/cli.js";

const COMMANDS = ["inspect", "validate", "serve", "call", "generate"];

/** The `$ …` lines under "Examples:". */
function examples(help: string): string[] {
  return [...help.slice(help.indexOf("Examples:")).matchAll(/^ {2}\$ (.+)$/gm)].map((m) => m[1]!);
}

describe("--help", () => {
  it.each(["", ...COMMANDS])("of '%s' lists options and examples", async (command) => {
    const { code, stdout } = await runCli([...(command ? [command] : []), "--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: openapi-mcp/m);
    expect(examples(stdout).length).toBeGreaterThanOrEqual(2);
    if (command) expect(examples(stdout).every((line) => line.includes(`openapi-mcp ${command}`))).toBe(true);
  });

  it.each(["inspect", "validate", "call"])("the first example of '%s' works as printed", async (command) => {
    const first = examples((await runCli([command, "--help"])).stdout)[0]!;
    // The words after `openapi-mcp`, with the shell's quoting undone (the examples quote only JSON).
    const words = first
      .slice(first.indexOf("openapi-mcp ") + "openapi-mcp ".length)
      .split(/ (?=(?:[^']*'[^']*')*[^']*$)/)
      .map((word) => word.replace(/^'|'$/g, ""));
    const { code, stderr } = await runCli(words);
    expect(code, stderr).toBe(0);
  });
});

describe("progress on stderr", () => {
  it("narrates a large document's loading (GitHub's, 13 MB), and nothing for a small one", async () => {
    const large = await runCli(["inspect", GITHUB_SPEC, "--include", "tag:meta"]);
    expect(large.code).toBe(0);
    expect(large.stderr).toMatch(
      /MB read, parsing…\n.*building tools for 1,\d{3} operations…\n.*tools built in \d+\.\d s/,
    );
    const small = await runCli(["inspect", "examples/petstore.openapi.yaml"]);
    expect(small.stderr).toBe("");
  });

  it("narrates generating a project for a large API", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "narrated-")), "github-mcp");
    const { code, stderr } = await runCli(["generate", GITHUB_SPEC, "--out", out]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /rendering a project for 1,\d{3} tools…\n.*writing \d+ files \(\d+\.\d MB\) to .*github-mcp…/,
    );
    rmSync(out, { recursive: true, force: true });
  });
});
