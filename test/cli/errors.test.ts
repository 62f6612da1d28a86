// What the user sees when a source cannot be loaded: exit 1 and one message on stderr, starting `openapi-mcp:`,
// naming the file (and the place in it), with no stack trace unless --debug. Usage mistakes are exit 1 too.

import { describe, expect, it } from "vitest";
import { runCli, STACK_LINE } from "../support/cli.js";

const F = "test/fixtures";

describe("bad input on the command line", () => {
  it.each([
    { source: `${F}/bad/malformed.json`, want: [/not valid JSON/] },
    { source: `${F}/bad/malformed.yaml`, want: [/not valid YAML/] },
    { source: `${F}/bad/does-not-exist.yaml`, want: [/cannot read: no such file/] },
    { source: `${F}/bad/empty.yaml`, want: [/the file is empty/] },
    { source: `${F}/bad/openapi-3.2.yaml`, want: [/#\/openapi: OpenAPI 3\.2\.0 is not supported/] },
    { source: `${F}/bad/swagger-1.2.json`, want: [/#\/swagger: Swagger 1\.2 is not supported/] },
    { source: `${F}/bad/alias-bomb.yaml`, want: [/not valid YAML/, /alias/i] },
    { source: `${F}/bad/unknown-kind.yaml`, want: [/not an OpenAPI document, action definition or manifest/] },
    {
      source: `${F}/refs/escape/parent.yaml`,
      want: [
        /#\/paths\/~1things\/get\/responses\/200\/content\/application~1json\/schema: \$ref '\.\.\/outside\.yaml'/,
      ],
    },
    { source: `${F}/refs/escape/absolute.yaml`, want: [/\$ref '\/etc\/hostname'/, /\$ref 'file:\/\/\/etc\/passwd'/] },
    {
      source: `${F}/actions/literal-secret.actions.yaml`,
      want: [/:7:10 #\/auth\/value: must be a \$\{VAR\} reference/],
    },
    { source: `${F}/actions/unknown-field.actions.yaml`, want: [/#\/actions\/0\/verb: unknown field 'verb'/] },
    {
      source: `${F}/actions/duplicate.actions.yaml`,
      want: [/#\/actions\/2\/name: action name 'ping' is already used by #\/actions\/0/],
    },
    {
      source: `${F}/actions/env-base-url.actions.yaml`,
      want: [/#\/baseUrl: environment variable ENVY_BASE_URL is not set/],
    },
    {
      source: `${F}/manifest/missing-var.manifest.yaml`,
      want: [/#\/sources\/0\/baseUrl: environment variable FLEET_UNSET_BASE_URL is not set/],
    },
    {
      source: `${F}/manifest/literal-secret.manifest.yaml`,
      want: [/#\/sources\/0\/auth\/cars_key: must be a \$\{VAR\} reference/],
    },
    { source: `${F}/manifest/nested.manifest.yaml`, want: [/#\/sources\/0\/source: .* manifests do not nest/] },
  ])("$source: exit 1, one message naming the file, no stack trace", async ({ source, want }) => {
    for (const command of ["inspect", "validate"]) {
      const { code, stdout, stderr } = await runCli([command, source]);
      expect(code, `${command} ${source}: ${stderr}`).toBe(1);
      expect(stdout).toBe("");
      expect(stderr.startsWith(`openapi-mcp: ${source}`)).toBe(true);
      expect(stderr.match(/openapi-mcp:/g)).toHaveLength(1);
      for (const pattern of want) expect(stderr).toMatch(pattern);
      expect(stderr).not.toMatch(STACK_LINE);
      expect(stderr).not.toContain("internal error");
    }
  });

  it("never echoes a literal secret", async () => {
    const action = await runCli(["inspect", `${F}/actions/literal-secret.actions.yaml`]);
    expect(action.stderr).not.toContain("LEAKED0SECRET");
    const header = await runCli(["inspect", `${F}/actions/literal-header.actions.yaml`]);
    expect(header.code).toBe(1);
    expect(header.stderr).not.toContain("eyJLEAKEDHEADERTOKEN");
    const manifest = await runCli(["inspect", `${F}/manifest/literal-secret.manifest.yaml`]);
    expect(manifest.stderr).not.toContain("hunter2");
  });

  it("gives line and column for a YAML syntax error", async () => {
    const { stderr } = await runCli(["inspect", `${F}/bad/malformed.yaml`]);
    expect(stderr).toMatch(/line 9, column \d+/);
  });

  it("names the manifest entry of a missing source file", async () => {
    const { code, stderr } = await runCli(["inspect", `${F}/manifest/missing-source.manifest.yaml`]);
    expect(code).toBe(1);
    expect(stderr).toContain("ghost.openapi.yaml");
    expect(stderr).toContain(`${F}/manifest/missing-source.manifest.yaml#/sources/0/source`);
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("shows the stack trace with --debug", async () => {
    const { code, stderr } = await runCli(["--debug", "inspect", `${F}/bad/empty.yaml`]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^openapi-mcp: test\/fixtures\/bad\/empty\.yaml: the file is empty$/m);
    expect(stderr).toMatch(STACK_LINE);
  });
});

describe("usage mistakes", () => {
  it.each([
    { args: ["inspect", "examples/petstore.openapi.yaml", "--bogus"], want: /^openapi-mcp: unknown option '--bogus'/ },
    { args: ["validate", "examples/petstore.openapi.yaml", "--jsn"], want: /^openapi-mcp: unknown option '--jsn'/ },
    { args: ["inspekt", "examples/petstore.openapi.yaml"], want: /^openapi-mcp: unknown command 'inspekt'/ },
    { args: ["inspect"], want: /^openapi-mcp: missing required argument 'source'/ },
    {
      args: ["inspect", "examples/petstore.openapi.yaml", "--include", "colour:red"],
      want: /'colour:red' is not a filter/,
    },
    {
      args: ["serve", "examples/petstore.openapi.yaml", "--auth-principal-claim", "client_id"],
      want: /--auth-principal-claim applies to OAuth endpoint auth/,
    },
    {
      args: [
        ...["serve", `${F}/openapi31/library.openapi.yaml`, "--transport", "http", "--auth-principal-claim", "aud"],
        ...["--auth-resource", "https://mcp.example.com/mcp", "--auth-issuer", "https://as.example.com"],
      ],
      want: /principalClaim must name a claim that identifies the caller \(sub, client_id, azp, …\), not "aud"/,
    },
  ])("$args exits 1 naming the problem", async ({ args, want }) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(want);
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("suggests the option meant", async () => {
    const { stderr } = await runCli(["inspect", "examples/petstore.openapi.yaml", "--jsno"]);
    expect(stderr).toContain("--json");
  });
});
