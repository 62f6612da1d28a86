// One set of variable names: for several sources, the variables `inspect` prints are exactly those `serve` asks
// for at start and those a call's error result names. (With several sources the convention's names carry the
// source id, API_KEY_PETSTORE_API_KEY; an explicit ${VAR} keeps its name.)

import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { runCli } from "../support/cli.js";
import { example, fixture } from "../support/fixtures.js";
import { serveOverStdio, textOf, waitFor } from "../support/guard.js";

const SOURCES = [
  example("petstore.openapi.yaml"),
  fixture("openapi2/pets.swagger.yaml"),
  example("widgets.actions.yaml"),
];
const VARIABLE =
  /\b(?:API_KEY|BEARER_TOKEN|BASIC_USERNAME|BASIC_PASSWORD|OAUTH_CLIENT_ID|OAUTH_CLIENT_SECRET)_[A-Z0-9_]+\b|\bWIDGETS_API_KEY\b/g;
const variablesIn = (text: string): string[] => [...new Set(text.match(VARIABLE) ?? [])].sort();

interface Report {
  tools: Array<{ name: string }>;
  credentials: Array<{ id: string; variables: string[]; usedBy: number }>;
}

describe("credential variable names for several sources", () => {
  it("inspect prints the names serve's start-up lines and a call's error result ask for", async () => {
    const inspect = await runCli(["inspect", ...SOURCES, "--json"]);
    expect(inspect.code, inspect.stderr).toBe(0);
    const report = JSON.parse(inspect.stdout) as Report;
    const inspected = [...new Set(report.credentials.filter((c) => c.usedBy > 0).flatMap((c) => c.variables))].sort();
    expect(inspected).toEqual([
      "API_KEY_PETSTORE_API_KEY",
      "API_KEY_PETS_QUERY_KEY",
      "BASIC_PASSWORD_PETS_BASICAUTH",
      "BASIC_USERNAME_PETS_BASICAUTH",
      "OAUTH_CLIENT_ID_PETS_PETSTORE_OAUTH",
      "OAUTH_CLIENT_SECRET_PETS_PETSTORE_OAUTH",
      "WIDGETS_API_KEY",
    ]);
    // The text report shows the same names.
    const text = await runCli(["inspect", ...SOURCES]);
    expect(variablesIn(text.stdout)).toEqual(inspected);

    const server = await serveOverStdio(SOURCES, { env: {} });
    const asked: string[] = [];
    try {
      await waitFor(() => inspected.every((v) => server.stderr().includes(v)));
      // Only tools that need credentials are called (the others would reach the documents' real hosts).
      const catalog = await loadCatalog(SOURCES);
      const needing = catalog.tools.filter(
        (t) => t.operation.security.length > 0 && t.operation.security.every((a) => a.schemes.length > 0),
      );
      expect(needing.length).toBeGreaterThan(10);
      for (const tool of needing) {
        const result = await server.client.callTool({ name: tool.name, arguments: {} });
        expect(textOf(result), tool.name).toContain("credentials are missing");
        asked.push(...variablesIn(textOf(result)));
      }
    } finally {
      await server.close();
    }
    expect(variablesIn(server.stderr())).toEqual(inspected);
    expect([...new Set(asked)].sort()).toEqual(inspected);
  });
});
