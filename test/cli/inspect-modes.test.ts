// `openapi-mcp inspect --config`, run as the built binary: each security scheme says how its value is obtained,
// from the environment or per user (forwarded from a header, exchanged at a token URL), as the settings file says.

import { describe, expect, it } from "vitest";
import type { InspectReport } from "../../src/inspect/report.js";
import { runCli } from "../support/cli.js";
import { tempDir, writeFile } from "../support/guard.js";

const PETSTORE = "examples/petstore.openapi.yaml";

describe("inspect --config", () => {
  it("shows each scheme's credential mode", async () => {
    const temp = tempDir();
    try {
      const config = writeFile(temp.dir, "settings.json", {
        credentials: { api_key: { perUser: { forwarded: { header: "X-Upstream-Key" } } } },
      });
      const { code, stdout, stderr } = await runCli(["inspect", PETSTORE, "--config", config]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toContain(
        "api_key: API key in header X-API-Key · per user: forwarded from each caller's X-Upstream-Key header (4 tools)",
      );
      const json = await runCli(["inspect", PETSTORE, "--config", config, "--json"]);
      const report = JSON.parse(json.stdout) as InspectReport;
      expect(report.credentials).toContainEqual(
        expect.objectContaining({ id: "api_key", mode: "forwarded", variables: [] }),
      );
      const plain = JSON.parse((await runCli(["inspect", PETSTORE, "--json"])).stdout) as InspectReport;
      expect(plain.credentials).toContainEqual(expect.objectContaining({ id: "api_key", mode: "environment" }));
    } finally {
      temp.remove();
    }
  });

  it("warns at start over stdio that a per-user scheme has no verified caller to take it from", async () => {
    const temp = tempDir();
    try {
      const config = writeFile(temp.dir, "settings.json", {
        credentials: { api_key: { perUser: { forwarded: { header: "X-Upstream-Key" } } } },
      });
      const { code, stderr } = await runCli(["serve", PETSTORE, "--config", config]);
      expect(code).toBe(0);
      expect(stderr).toContain(
        "warning: api_key takes each caller's own credential (credentials.<scheme>.perUser), and stdio has no verified caller",
      );
    } finally {
      temp.remove();
    }
  });

  it("refuses a forwarded Authorization header, naming the setting", async () => {
    const temp = tempDir();
    try {
      const config = writeFile(temp.dir, "settings.json", {
        credentials: { api_key: { perUser: { forwarded: { header: "Authorization" } } } },
      });
      const { code, stderr } = await runCli(["serve", PETSTORE, "--config", config]);
      expect(code).toBe(1);
      expect(stderr).toContain(`${config}#/credentials/api_key/perUser/forwarded/header: the Authorization header`);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      temp.remove();
    }
  });
});
