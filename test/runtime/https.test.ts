// HTTPS enforcement at start: which upstream URLs (tool server URLs, OAuth 2.0 token URLs) are refused, which
// pass, and how the opt-out turns refusals into warnings.

import { describe, expect, it } from "vitest";
import type { Catalog, CredentialScheme, SecurityRequirement, Tool } from "../../src/catalog/types.js";
import { checkUpstreamUrls, insecureUpstreamUrls } from "../../src/runtime/http/https.js";

function tool(name: string, serverUrl: string, security: SecurityRequirement[] = []): Tool {
  return {
    name,
    title: name,
    description: "",
    inputSchema: { type: "object" },
    annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    effect: "read",
    operation: {
      method: "GET",
      serverUrl,
      path: `/${name}`,
      parameters: { path: [], query: [], header: [], cookie: [] },
      accept: [],
      security,
    },
    source: "",
    origin: { file: "spec.yaml", pointer: "", tags: [] },
  };
}

function oauth(name: string, tokenUrl: string): CredentialScheme {
  return { name, type: "oauth2", tokenUrl, scopes: [], clientId: { env: "ID" }, clientSecret: { env: "SECRET" } };
}

const uses = (id: string): SecurityRequirement[] => [{ schemes: [{ id, scopes: [] }] }];

function catalog(
  tools: Tool[],
  credentials: Record<string, CredentialScheme> = {},
): Pick<Catalog, "tools" | "credentials"> {
  return { tools, credentials };
}

describe("server URLs", () => {
  it.each([
    "https://api.example.com/v1",
    "https://10.0.0.1",
    "http://127.0.0.1:8080/v1",
    "http://127.1.2.3",
    "http://localhost:3000",
    "http://api.localhost",
    "http://[::1]:9000/api",
    "HTTP://LOCALHOST:1",
    "",
  ])("accepts %j", (url) => {
    expect(checkUpstreamUrls(catalog([tool("a", url)]))).toEqual({ errors: [], warnings: [] });
  });

  it.each([
    "http://api.example.com/v1",
    "http://10.0.0.1",
    "http://192.168.1.1:8080",
    "http://[fe80::1]",
    "http://127.0.0.1.nip.io",
    "http://localhost.example.com",
    "http://0.0.0.0",
    "http://[::ffff:127.0.0.1]",
  ])("refuses %j, naming it and what uses it", (url) => {
    const { errors, warnings } = checkUpstreamUrls(catalog([tool("listPets", url)]));
    expect(warnings).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^\S+ \(the server URL of tool listPets\) is plain http to a host that is not loopback/);
    expect(errors[0]).toContain(url);
    expect(errors[0]).toContain("--allow-insecure-http");
  });

  it("lists each URL once with the tools that use it", () => {
    const tools = ["a", "b", "c", "d"].map((name) => tool(name, "http://api.example.com"));
    expect(
      insecureUpstreamUrls(
        catalog([...tools, tool("e", "http://other.example.com"), tool("f", "https://ok.example.com")]),
      ),
    ).toEqual([
      { url: "http://api.example.com", kind: "http", usedBy: "the server URL of 4 tools (a, b, c, …)" },
      { url: "http://other.example.com", kind: "http", usedBy: "the server URL of tool e" },
    ]);
  });

  it("refuses URLs that are not http(s) even with the opt-out", () => {
    for (const url of ["ftp://files.example.com", "file:///etc/passwd", "/relative/path"]) {
      const result = checkUpstreamUrls(catalog([tool("a", url)]), { allowInsecureHttp: true });
      expect(result.warnings).toEqual([]);
      expect(result.errors).toEqual([`${url} (the server URL of tool a) is not an absolute http(s) URL`]);
    }
  });
});

describe("token URLs", () => {
  it("refuses plain http token URLs of the schemes tools use, and ignores unused schemes", () => {
    const credentials = {
      "cars.auth": oauth("auth", "http://auth.example.com/token"),
      local: oauth("local", "http://127.0.0.1:9999/token"),
      unused: oauth("unused", "http://unused.example.com/token"),
      key: { name: "key", type: "apiKey", in: "header", parameter: "X-Key", value: { env: "K" } } as CredentialScheme,
    };
    const tools = [
      tool("a", "https://api.example.com", uses("cars.auth")),
      tool("b", "https://api.example.com", [...uses("key"), ...uses("local")]),
    ];
    expect(insecureUpstreamUrls(catalog(tools, credentials))).toEqual([
      {
        url: "http://auth.example.com/token",
        kind: "http",
        usedBy: "the OAuth 2.0 token URL of security scheme 'auth'",
      },
    ]);
  });

  it("names every scheme sharing a token URL", () => {
    const credentials = {
      one: oauth("one", "http://auth.example.com/t"),
      two: oauth("two", "http://auth.example.com/t"),
    };
    const tools = [tool("a", "https://api.example.com", [...uses("one"), ...uses("two")])];
    expect(insecureUpstreamUrls(catalog(tools, credentials))[0]?.usedBy).toBe(
      "the OAuth 2.0 token URL of security schemes 'one', 'two'",
    );
  });
});

describe("the opt-out", () => {
  it("turns every plain-http refusal into a warning for each start", () => {
    const credentials = { auth: oauth("auth", "http://auth.example.com/token") };
    const tools = [tool("a", "http://api.example.com", uses("auth"))];
    expect(checkUpstreamUrls(catalog(tools, credentials)).errors).toHaveLength(2);
    const { errors, warnings } = checkUpstreamUrls(catalog(tools, credentials), { allowInsecureHttp: true });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      "http://api.example.com (the server URL of tool a) is plain http to a host that is not loopback, allowed by --allow-insecure-http: credentials and data cross the network unencrypted and can be read or changed on the way",
      "http://auth.example.com/token (the OAuth 2.0 token URL of security scheme 'auth') is plain http to a host that is not loopback, allowed by --allow-insecure-http: credentials and data cross the network unencrypted and can be read or changed on the way",
    ]);
  });
});
