// `--auth` end to end, on GitHub's real spec (it declares no security scheme, so before --auth no call could carry a
// token): `serve` sends `Authorization: Bearer …` on every tool's call to a loopback upstream, and the token shows
// nowhere (results, stderr, audit log); `inspect`, `call --dry-run` and a generated project name the variable.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, STACK_LINE } from "../support/cli.js";
import { echo, serveOverStdio, tempDir, textOf, waitFor, writeFile } from "../support/guard.js";
import { Upstream } from "../support/upstream.js";

const GITHUB = "node_modules/@octokit/openapi/generated/api.github.com.json";
const TOKEN = "ghp_authOptionToken0123456789";

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  api = await Upstream.start();
  temp = tempDir("openapi-mcp-auth-option-");
});
afterAll(async () => {
  await api.close();
  temp.remove();
});
afterEach(() => api.reset());

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

describe("GITHUB_TOKEN=… serve api.github.com.json --auth bearer:GITHUB_TOKEN", () => {
  it("sends Authorization: Bearer on the calls of every kind of tool, and the token shows nowhere", async () => {
    api.on("GET", /.*/, echo());
    api.on("POST", /.*/, echo({ status: 201 }));
    const audit = join(temp.dir, "audit.jsonl");
    const server = await serveOverStdio(
      [
        GITHUB,
        "--auth",
        "bearer:GITHUB_TOKEN",
        "--base-url",
        api.url,
        "--output-validation",
        "off",
        "--audit-log",
        audit,
      ],
      { env: { GITHUB_TOKEN: TOKEN } },
    );
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ["meta_root", {}, "/"],
      ["users_get-authenticated", {}, "/user"],
      ["repos_get", { owner: "octo", repo: "hello" }, "/repos/octo/hello"],
      ["search_repos", { q: "mcp" }, "/search/repositories"],
      ["issues_create", { owner: "octo", repo: "hello", body: { title: "Hi" } }, "/repos/octo/hello/issues"],
    ];
    const shown: string[] = [];
    try {
      for (const [tool, args] of calls) {
        const result = (await server.client.callTool({ name: tool, arguments: args })) as Result;
        expect(result.isError ?? false, `${tool}: ${textOf(result)}`).toBe(false);
        shown.push(JSON.stringify(result));
      }
      // The server asked for nothing at start: the one variable is set.
      expect(server.stderr()).not.toContain("credentials are missing");
    } finally {
      await server.close();
    }
    for (const [tool, , path] of calls) {
      const [request] = api.to(path);
      expect(request, tool).toBeDefined();
      expect(request!.headers.authorization, tool).toBe(`Bearer ${TOKEN}`);
    }
    expect(api.requests).toHaveLength(calls.length);
    const auditText = readFileSync(audit, "utf8");
    expect(auditText.trim().split("\n")).toHaveLength(calls.length);
    for (const text of [...shown, server.stderr(), auditText]) expect(text).not.toContain(TOKEN);
  });

  it("without the variable it still starts, naming it; a call answers with an error naming it, sends nothing, and is audited so", async () => {
    const audit = join(temp.dir, "missing.jsonl");
    const server = await serveOverStdio(
      [GITHUB, "--auth", "bearer:GITHUB_TOKEN", "--base-url", api.url, "--audit-log", audit],
      { env: {} },
    );
    try {
      await waitFor(() => server.stderr().includes("GITHUB_TOKEN"));
      // Every tool waits for it.
      expect(server.stderr()).toMatch(/credentials are missing for (\d+) of \1 tools/);
      expect(server.stderr()).toContain("set GITHUB_TOKEN (security scheme 'bearer')");
      const result = (await server.client.callTool({
        name: "repos_get",
        arguments: { owner: "octo", repo: "hello" },
      })) as Result;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("set GITHUB_TOKEN (security scheme 'bearer')");
    } finally {
      await server.close();
    }
    expect(api.requests).toEqual([]);
    expect(JSON.parse(readFileSync(audit, "utf8"))).toMatchObject({
      tool: "repos_get",
      outcome: "missing_credentials",
    });
  });

  it("`inspect` lists the scheme and its variable; `call --dry-run` shows where it goes, masked or as a placeholder", async () => {
    const inspect = await runCli(["inspect", GITHUB, "--auth", "bearer:GITHUB_TOKEN", "--json"]);
    expect(inspect.code, inspect.stderr).toBe(0);
    const report = JSON.parse(inspect.stdout) as {
      credentials: Array<Record<string, unknown>>;
      totals: { tools: number };
    };
    expect(report.credentials).toEqual([
      {
        id: "bearer",
        type: "bearer",
        detail: "bearer token",
        variables: ["GITHUB_TOKEN"],
        usedBy: report.totals.tools,
        mode: "environment",
      },
    ]);

    const args = [
      "call",
      GITHUB,
      "repos_get",
      "--args",
      '{"owner":"octo","repo":"hello"}',
      "--auth",
      "bearer:GITHUB_TOKEN",
      "--dry-run",
    ];
    const unset = await runCli(args);
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stdout).toContain("authorization: Bearer <GITHUB_TOKEN is not set>");
    const set = await runCli(args, { env: { GITHUB_TOKEN: TOKEN } });
    expect(set.stdout).toContain("authorization: Bearer ****");
    expect(set.stdout + set.stderr).not.toContain(TOKEN);
    expect(api.requests).toEqual([]);
  });

  it("`call` takes the operationId as GitHub's documentation writes it, and suggests near names for a typo", async () => {
    const byOperationId = await runCli([
      "call",
      GITHUB,
      "repos/get",
      "--args",
      '{"owner":"octo","repo":"hello"}',
      "--auth",
      "bearer:GITHUB_TOKEN",
      "--dry-run",
    ]);
    expect(byOperationId.code, byOperationId.stderr).toBe(0);
    expect(byOperationId.stdout).toContain("GET https://api.github.com/repos/octo/hello");
    const typo = await runCli(["call", GITHUB, "repos_gett", "--dry-run"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("no tool named 'repos_gett'; did you mean repos_get?");
    expect(typo.stderr).not.toMatch(STACK_LINE);
  });
});

describe("--auth on the command line", () => {
  const bare = (): string =>
    writeFile(temp.dir, "bare.openapi.json", {
      openapi: "3.0.3",
      info: { title: "Bare API", version: "1" },
      servers: [{ url: `${api.url}/v1` }],
      paths: {
        "/things": {
          get: { operationId: "listThings", summary: "List things", responses: { "200": { description: "ok" } } },
        },
      },
    });

  it("header, query and basic reach the upstream together", async () => {
    api.on("GET", "/v1/things", echo());
    const server = await serveOverStdio(
      [bare(), "--auth", "header:X-App:APP_KEY", "--auth", "query:sig:APP_SIG", "--auth", "basic:APP_USER:APP_PASS"],
      {
        env: { APP_KEY: "key-71", APP_SIG: "sig-72", APP_USER: "user", APP_PASS: "pass-73" },
      },
    );
    try {
      const result = (await server.client.callTool({ name: "listThings", arguments: {} })) as Result;
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expect(textOf(result)).not.toMatch(/key-71|sig-72|pass-73/);
    } finally {
      await server.close();
    }
    const [request] = api.to("/v1/things");
    expect(request!.headers["x-app"]).toBe("key-71");
    expect(request!.query).toBe("sig=sig-72");
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from("user:pass-73").toString("base64")}`);
  });

  it("a bad form: exit 1, a message with the accepted forms, no stack trace", async () => {
    const run = await runCli(["serve", bare(), "--auth", "bearer"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "openapi-mcp: --auth bearer:…: expected bearer:VAR; the forms are bearer:VAR, header:NAME:VAR, query:NAME:VAR",
    );
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it("a generated project's README and .env.example list the variable", async () => {
    const out = join(temp.dir, "generated");
    const run = await runCli(["generate", bare(), "--out", out, "--auth", "bearer:BARE_TOKEN"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(out, ".env.example"), "utf8")).toContain("\nBARE_TOKEN=\n");
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("`BARE_TOKEN`");
    const catalog = JSON.parse(readFileSync(join(out, "catalog.json"), "utf8")) as {
      credentials: Record<string, unknown>;
    };
    expect(catalog.credentials).toEqual({ bearer: { name: "bearer", type: "bearer", token: { env: "BARE_TOKEN" } } });
  });
});
