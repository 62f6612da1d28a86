// --state-secret / MCP_STATE_SECRET: `serve` and a generated server read the variable alike (a comma-separated
// list, the first signing), and a secret too short stops the start with one line naming where it came from,
// never the secret itself.

import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readServeOptions } from "../../src/cli/serve.js";
import { readServerCommandLine } from "../../src/server/command-line.js";
import { runCli, STACK_LINE } from "../support/cli.js";
import { REPOSITORY } from "../support/generated.js";

const PETSTORE = join(REPOSITORY, "examples/petstore.openapi.yaml");
const NEW = "new-secret-0123456789abcdefghijklmnop";
const OLD = "old-secret-0123456789abcdefghijklmnop";

afterEach(() => {
  delete process.env.MCP_STATE_SECRET;
});

describe("--state-secret", () => {
  it("MCP_STATE_SECRET holds a list, read by serve as by a generated server", () => {
    const env = { MCP_STATE_SECRET: `${NEW}, ${OLD}` };
    process.env.MCP_STATE_SECRET = env.MCP_STATE_SECRET;
    const generated = readServerCommandLine({ args: [], env });
    expect("settings" in generated && generated.settings.stateSecrets).toEqual([NEW, OLD]);
    expect(readServeOptions([]).stateSecrets).toEqual([NEW, OLD]);
  });

  it("a short secret stops serve with one line, without showing it", async () => {
    const result = await runCli(["serve", PETSTORE], { env: { MCP_STATE_SECRET: `${NEW},tooShort99` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "openapi-mcp: --state-secret (MCP_STATE_SECRET): secret 2 of 2 has 10 characters; it must have at least 32",
    );
    expect(result.stderr).not.toContain("tooShort99");
    expect(result.stderr).not.toMatch(STACK_LINE);
  });
});
