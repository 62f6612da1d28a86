// The worked example of docs/many-users.md (GitHub for a team), kept honest: its YAML block, read by the real
// settings reader, serves GitHub's real document (`serve` over HTTP with OAuth endpoint auth, as its command line
// says) against a Keycloak-like issuer on loopback (realm path, OpenID discovery appended, JWKS). Each profile lists
// what the README says; the triage agent's call carries the server's token; a maintainer's first call is answered
// with the sign-in link at GitHub, nothing sent; someone in no profile is refused. Only the token store's path and
// the issuer's host are changed (the test cannot write /var/lib, nor reach sso.example.com).

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { REPOSITORY } from "../support/generated.js";
import { tempDir } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";
import { type AuthServer, startAuthServer } from "../server/auth-support.js";

const GITHUB_SPEC = join(REPOSITORY, "node_modules/@octokit/openapi/generated/api.github.com.json");
const SERVER_TOKEN = "github_pat_server-canary-41d7";

/** The worked example's section, its YAML block and its command line (continuations joined). */
function example() {
  const readme = readFileSync(join(REPOSITORY, "docs/many-users.md"), "utf8");
  const start = readme.indexOf("## A worked example");
  const section = readme.slice(start, readme.indexOf("\n## ", start));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const sh = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "").replace(/\\\n\s*/g, "");
  const option = (name: string) => new RegExp(`--${name} (\\S+)`).exec(sh)?.[1] ?? "";
  return {
    section,
    yaml,
    exported: [...sh.matchAll(/^export (\w+)=/gm)].map((m) => m[1]!),
    resource: option("auth-resource"),
    issuer: option("auth-issuer"),
    transport: option("transport"),
  };
}

let sso: AuthServer;
let github: Upstream;
let running: RunningServer;
const logs: string[] = [];

// The auth server's helper closes it when the test that started it ends: one test holds the whole server run.
async function start(): Promise<void> {
  const { yaml, issuer, resource, transport } = example();
  expect(transport).toBe("http");
  sso = await startAuthServer({ path: new URL(issuer).pathname, discovery: "openid-appended" });
  github = await Upstream.start();
  const temp = tempDir("readme-example-");
  onTestFinished(async () => {
    await running?.close();
    await github.close();
    temp.remove();
  });
  const storeLine = /^tokenStore: .*$/m;
  expect(yaml).toMatch(storeLine);
  const config = join(temp.dir, "github.yaml");
  writeFileSync(config, yaml.replace(storeLine, `tokenStore: { file: ${join(temp.dir, "user-tokens.json")} }`));
  running = await serve(GITHUB_SPEC, {
    transport: "http",
    port: 0,
    config,
    baseUrl: github.url,
    cache: false,
    auth: { type: "oauth", resource, authorizationServers: [sso.issuer] },
    env: {
      GITHUB_TOKEN: SERVER_TOKEN,
      GITHUB_CLIENT_SECRET: "oauth-app-secret-canary-77",
      OPENAPI_MCP_TOKEN_KEY: Buffer.alloc(32, 9).toString("base64"),
    },
    log: (line) => logs.push(line),
  });
}

async function connect(claims: Record<string, unknown>) {
  const token = await sso.sign({ client_id: undefined, ...claims }); // Keycloak names the client in azp
  const client = new Client({ name: "readme", version: "0.0.0" });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url!), { requestInit: { headers } }));
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const textOf = (result: unknown) =>
  (result as { content: Array<{ text?: string }> }).content.map((c) => c.text ?? "").join("\n");

describe("the README's worked example (GitHub for a team)", () => {
  it("names every variable its settings read, and uses the issuer's realm", () => {
    const { yaml, exported, issuer } = example();
    for (const variable of yaml.matchAll(/\$\{(\w+)\}/g)) expect(exported).toContain(variable[1]);
    expect(exported).toContain("OPENAPI_MCP_TOKEN_KEY");
    expect(issuer).toBe("https://sso.example.com/realms/eng");
  });

  it("serves GitHub's document as the README says", { timeout: 60_000 }, async () => {
    await start();
    const { section } = example();
    const triage = await names(await connect({ azp: "triage-bot", sub: "svc-triage" }));
    const ci = await names(await connect({ azp: "ci-runner", sub: "svc-ci" }));
    const maintainer = await names(await connect({ azp: "claude", sub: "u-ada", groups: ["maintainers"] }));
    expect(triage.every((n) => n.startsWith("issues_"))).toBe(true);
    expect(ci.every((n) => n.startsWith("actions_") || n.startsWith("checks_"))).toBe(true);
    expect(maintainer.filter((n) => !n.startsWith("repos_") && !n.startsWith("pull"))).toEqual([]);
    expect(section).toContain(`The triage agent lists ${triage.length} tools`);
    expect(section).toContain(`The CI runner lists ${ci.length} `);
    expect(section).toContain(`A maintainer lists ${maintainer.length} tools`);

    // Someone no profile matches is refused.
    await expect(connect({ azp: "claude", sub: "u-eve", groups: ["contractors"] })).rejects.toThrow(
      /Forbidden: no profile of this server matches this caller/,
    );

    // The triage agent's calls carry the server's token, as GitHub wants them.
    github.on("GET", "/repos/acme/api/issues/7", json({ number: 7 }));
    const triageClient = await connect({ azp: "triage-bot", sub: "svc-triage" });
    await triageClient.callTool({ name: "issues_get", arguments: { owner: "acme", repo: "api", issue_number: 7 } });
    const sent = github.only();
    expect(sent.headers.authorization).toBe(`Bearer ${SERVER_TOKEN}`);
    expect(sent.headers["user-agent"]).toBe("openapi-mcp");

    // A maintainer's first call is answered with the sign-in link at GitHub the README shows; nothing is sent.
    github.reset();
    const client = await connect({ azp: "claude", sub: "u-ada", groups: ["maintainers"] });
    const result = await client.callTool({ name: "pulls_list", arguments: { owner: "acme", repo: "api" } });
    expect(result.isError).toBe(true);
    expect(github.requests).toHaveLength(0);
    const text = textOf(result);
    const link = /https:\/\/github\.com\/\S+/.exec(text)?.[0] ?? "";
    const shown = link.replace(/state=[^&]+/, "state=…").replace(/code_challenge=[^&]+/, "code_challenge=…");
    expect(section.replace(/\s+/g, " ")).toContain(
      `${text
        .replace(link, shown)
        .replace(/^pulls_list cannot be called: /, "")
        .replace(/ Nothing was sent\.$/, "")}`.replace(/\s+/g, " "),
    );
    expect(new URL(link).searchParams.get("code_challenge_method")).toBe("S256");
    expect(JSON.stringify(logs)).not.toContain(SERVER_TOKEN);
  });
});
