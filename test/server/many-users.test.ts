// Many users on one server, end to end (issue 14's test): `serve --transport http` with OAuth endpoint auth against a
// real authorization server on loopback (jose keys, a JWKS, tokens with a `groups` claim), two principals in two
// profiles matched by group, each with both per-user modes: a scheme its users sign in to (authorization code + PKCE
// at a loopback provider) and one exchanged for its MCP token (RFC 8693). Alice uses the v1 SDK client (2025-11-25,
// URL elicitation), Bob the v2 client pinned to 2026-07-28 (input_required). Each lists and calls only its
// profile's tools; every upstream request carries only its own principal's tokens; no token of either (MCP, signed
// in, refreshed or exchanged: the canaries) appears in the other's requests, in any result, the server log or the
// audit file; racing calls from both at once keep this.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import {
  type ElicitRequestURLParams,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { serve } from "../../src/app/serve.js";
import { tempDir, writeFile } from "../support/guard.js";
import { EXCHANGE_CLIENT, startExchangeEndpoint, UPSTREAM_AUDIENCE } from "../support/token-exchange.js";
import { json, type RecordedRequest, Upstream } from "../support/upstream.js";
import { oauth, startAuthServer } from "./auth-support.js";
import { CLIENT_ID, CLIENT_SECRET, follow, startSignInProvider } from "./sign-in-provider.js";

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

/** notes and drafts need a signed-in user (scheme `people`); jobs and reports an exchanged token (scheme `service`). */
const API = (url: string, provider: string) => {
  const op = (operationId: string, tag: string, scheme: string) => ({
    get: { operationId, tags: [tag], security: [{ [scheme]: [] }], responses: { "200": { description: "ok" } } },
  });
  return {
    openapi: "3.0.3",
    info: { title: "Team", version: "1" },
    servers: [{ url }],
    components: {
      securitySchemes: {
        people: {
          type: "oauth2",
          flows: {
            authorizationCode: { authorizationUrl: `${provider}/authorize`, tokenUrl: `${provider}/token`, scopes: {} },
          },
        },
        service: { type: "http", scheme: "bearer" },
      },
    },
    paths: {
      "/notes": op("listNotes", "notes", "people"),
      "/jobs": op("listJobs", "jobs", "service"),
      "/drafts": op("listDrafts", "drafts", "people"),
      "/reports": op("listReports", "reports", "service"),
    },
  };
};
/** Which principal may make a request, by path, and call a tool. */
const OWNER: Record<string, "alice" | "bob"> = {
  "/notes": "alice",
  "/jobs": "alice",
  "/drafts": "bob",
  "/reports": "bob",
};
const TOOL_OWNER: Record<string, "alice" | "bob"> = {
  listNotes: "alice",
  listJobs: "alice",
  listDrafts: "bob",
  listReports: "bob",
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function setUp() {
  const as = await startAuthServer();
  const exchange = await startExchangeEndpoint({ jwks: `http://127.0.0.1:${as.port}/jwks`, issuer: as.issuer });
  const provider = await startSignInProvider();
  const api = await Upstream.start();
  for (const path of Object.keys(OWNER)) api.on("GET", path, json({ ok: true }));
  const temp = tempDir("many-users-");
  onTestFinished(async () => {
    await Promise.all([exchange.close(), api.close()]);
    temp.remove();
  });
  const port = await freePort();
  const spec = writeFile(temp.dir, "team.json", API(api.url, provider.url));
  const config = writeFile(temp.dir, "settings.json", {
    tokenStore: { file: join(temp.dir, "state", "user-tokens.json") },
    credentials: {
      people: {
        perUser: {
          signIn: { clientId: CLIENT_ID, clientSecret: "${SIGN_IN_SECRET}", publicUrl: `http://127.0.0.1:${port}` },
        },
      },
      service: {
        perUser: {
          exchange: {
            tokenUrl: exchange.url,
            clientId: EXCHANGE_CLIENT.id,
            clientSecret: "${EXCHANGE_SECRET}",
            audience: UPSTREAM_AUDIENCE,
          },
        },
      },
    },
    profiles: {
      editors: { match: { groups: "editors" }, include: ["tag:notes", "tag:jobs"] },
      operators: { match: { groups: "operators" }, include: ["tag:drafts", "tag:reports"] },
    },
  });
  const logs: string[] = [];
  const auditLog = join(temp.dir, "audit.jsonl");
  const running = await serve(spec, {
    transport: "http",
    port,
    config,
    auth: oauth(as),
    auditLog,
    env: {
      EXCHANGE_SECRET: EXCHANGE_CLIENT.secret,
      SIGN_IN_SECRET: CLIENT_SECRET,
      OPENAPI_MCP_TOKEN_KEY: randomBytes(32).toString("base64"),
    },
    log: (line) => logs.push(line),
    cache: false,
  });
  onTestFinished(() => running.close());
  return { as, exchange, provider, api, url: running.url!, logs, auditLog };
}

type Connected = { call: (name: string) => Promise<Result>; list: () => Promise<string[]>; asked: string[] };

/** A 2025-11-25 client (SDK v1) that opens the sign-in URLs it is asked to, as `who` at the provider. */
async function legacyClient(url: string, token: string, signIn: (url: string) => Promise<void>): Promise<Connected> {
  const client = new Client({ name: "legacy", version: "0.0.0" }, { capabilities: { elicitation: { url: {} } } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const { url: link } = request.params as ElicitRequestURLParams;
    asked.push(link);
    await signIn(link);
    return { action: "accept" };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  onTestFinished(() => client.close());
  return {
    asked,
    call: async (name) => (await client.callTool({ name, arguments: {} })) as Result,
    list: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
  };
}

/** A 2026-07-28 client (SDK v2). */
async function modernClient(url: string, token: string, signIn: (url: string) => Promise<void>): Promise<Connected> {
  const client = new ModernClient(
    { name: "modern", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { url: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    const { url: link } = request.params as ElicitRequestURLParams;
    asked.push(link);
    await signIn(link);
    return { action: "accept" };
  });
  await client.connect(
    new ModernTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  onTestFinished(() => client.close());
  expect(client.getProtocolEra()).toBe("modern");
  return {
    asked,
    call: async (name) => (await client.callTool({ name, arguments: {} })) as Result,
    list: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
  };
}

const wire = (request: RecordedRequest): string =>
  JSON.stringify([request.url, request.headers, request.body.toString("latin1")]);

describe("two principals, two profiles, one server", () => {
  it("each sees and calls only its tools, and each one's tokens reach only its own requests", async () => {
    const { as, exchange, provider, api, url, logs, auditLog } = await setUp();
    const aliceMcp = await as.sign({ sub: "alice", groups: ["staff", "editors"] });
    const bobMcp = await as.sign({ sub: "bob", client_id: "client-2", groups: ["operators"] });
    // The provider signs in whoever follows the link: each client's person.
    const signInAs = (user: string) => async (link: string) => {
      provider.user = user;
      const { status } = await follow(link);
      expect(status).toBe(200);
    };
    const alice = await legacyClient(url, aliceMcp, signInAs("alice"));
    const bob = await modernClient(url, bobMcp, signInAs("bob"));

    expect(await alice.list()).toEqual(["listJobs", "listNotes"]);
    expect(await bob.list()).toEqual(["listDrafts", "listReports"]);
    // The other's tools are unknown, exactly as tools that do not exist; nothing is sent.
    await expect(alice.call("listDrafts")).rejects.toThrow("Unknown tool: listDrafts");
    await expect(alice.call("listReports")).rejects.toThrow("Unknown tool: listReports");
    const bobUnknown = await bob.call("listNotes").catch((error: unknown) => String(error));
    expect(JSON.stringify(bobUnknown)).toContain("Unknown tool: listNotes");
    expect(api.requests).toHaveLength(0);

    // First calls: each signs in (asked once, in its era's way) and exchanges once.
    const results: Result[] = [];
    results.push(await alice.call("listNotes"), await bob.call("listDrafts"));
    results.push(await alice.call("listJobs"), await bob.call("listReports"));
    // Then both at once, interleaved.
    const racing = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? alice.call(i % 4 === 0 ? "listNotes" : "listJobs")
        : bob.call(i % 4 === 1 ? "listDrafts" : "listReports"),
    );
    results.push(...(await Promise.all(racing)));
    expect(results.map((r) => r.isError ?? false)).toEqual(results.map(() => false));
    expect(api.requests).toHaveLength(16);

    // Each principal's canaries: its MCP token, the tokens it signed in for, the tokens exchanged for it.
    const signedIn = (user: string) =>
      provider.issued.access.filter(
        (t) => JSON.parse(Buffer.from(t.split(".")[1]!, "base64url").toString()).sub === user,
      );
    const canaries = {
      alice: [
        aliceMcp,
        ...signedIn("alice"),
        ...exchange.exchanges.filter((e) => e.subject === "alice").map((e) => e.issued),
      ],
      bob: [bobMcp, ...signedIn("bob"), ...exchange.exchanges.filter((e) => e.subject === "bob").map((e) => e.issued)],
    };
    const upstreamToken = { alice: canaries.alice.slice(1), bob: canaries.bob.slice(1) };
    for (const request of api.requests) {
      const owner = OWNER[request.url]!;
      const other = owner === "alice" ? "bob" : "alice";
      // Only its own principal's token, of the scheme the tool uses.
      expect(upstreamToken[owner].map((t) => `Bearer ${t}`)).toContain(request.headers.authorization);
      for (const canary of canaries[other]) expect(wire(request)).not.toContain(canary);
      for (const mcp of [aliceMcp, bobMcp]) expect(wire(request)).not.toContain(mcp);
    }
    // One token of each kind per principal: signed in once, exchanged once, each for its own.
    expect(alice.asked).toHaveLength(1);
    expect(bob.asked).toHaveLength(1);
    expect(canaries.alice).toHaveLength(3);
    expect(canaries.bob).toHaveLength(3);
    const audit = readFileSync(auditLog, "utf8");
    const shown = JSON.stringify([results, logs, audit]);
    for (const canary of [...canaries.alice, ...canaries.bob, CLIENT_SECRET, EXCHANGE_CLIENT.secret])
      expect(shown).not.toContain(canary);
    // The audit names the principal and profile of each call (Bob's first, answered input_required, too).
    const lines = audit
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { principal: string; profile: string; tool: string; outcome: string });
    expect(lines.filter((l) => l.outcome === "ok")).toHaveLength(16);
    expect(lines.filter((l) => l.outcome !== "ok").map((l) => [l.tool, l.outcome])).toEqual([
      ["listDrafts", "missing_credentials"],
    ]);
    for (const line of lines) {
      const owner = TOOL_OWNER[line.tool]!;
      expect(line.profile).toBe(owner === "alice" ? "editors" : "operators");
      expect(JSON.parse(line.principal)).toContain(owner);
    }
  });
});
