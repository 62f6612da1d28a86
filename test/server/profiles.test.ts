// Profiles: several principals on one HTTP server (`serve` with static tokens named in the variable), each seeing and
// calling only its profile's tools, under its own budgets; an approval state of one is refused to another; a caller
// no profile matches is refused (403) or gets the default profile; the audit line names principal and profile; and
// values one caller sends never reach another's results or audit lines, with both racing. Real SDK clients of both
// eras, a real upstream on 127.0.0.1.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ClientOptions,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer, ServeOptions } from "../../src/app/serve-options.js";
import { example } from "../support/fixtures.js";
import { textOf } from "../support/guard.js";
import { json, status, Upstream } from "../support/upstream.js";
import { INITIALIZE, mcpHeaders, raw } from "./http-support.js";

const PETSTORE = example("petstore.openapi.yaml");
const ENV = { API_KEY_API_KEY: "pk-profiles-1" };
const PIN_2026 = { versionNegotiation: { mode: { pin: "2026-07-28" } } } satisfies ClientOptions;
const TOKENS = {
  alice: "alice-token-0123456789abcdef0123456789",
  carol: "carol-token-0123456789abcdef0123456789",
  bob: "bob-token-0123456789abcdef0123456789abc",
  dave: "dave-token-0123456789abcdef0123456789ab",
};
const PETS_TOOLS = ["listPets", "createPet", "getPet", "deletePet"];

/** alice and carol: every pets tool, 2 getPet calls a minute each; bob: listPets only; dave: nothing matches him. */
const PROFILES = {
  pets: {
    match: { token: ["alice", "carol"] },
    include: ["tag:pets"],
    rateLimits: { tools: { getPet: { requests: 2, windowSeconds: 60 } } },
  },
  browse: { match: { token: "bob" }, include: ["op:listPets"] },
};

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

let api: Upstream;
let dir: string;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  api = await Upstream.start();
  dir = mkdtempSync(join(tmpdir(), "openapi-mcp-profiles-"));
});
afterAll(() => api.close());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  api.reset();
  vi.unstubAllEnvs();
});

let files = 0;
async function start({
  settings = {},
  options = {},
}: {
  settings?: Record<string, unknown>;
  options?: ServeOptions;
} = {}): Promise<RunningServer & { audit: () => Array<Record<string, unknown>> }> {
  api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
  api.on("GET", /^\/v1\/pets\/\d+$/, json({ id: 7, name: "Rex", kind: { species: "dog" } }));
  // The pets listed are named after the tags asked for: what a caller sent comes back in its own result.
  api.on("GET", /^\/v1\/pets(\?|$)/, ({ res, recorded }) => {
    const tags = new URLSearchParams(recorded.query).get("tags") ?? "";
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify([{ id: 1, name: tags, kind: { species: "dog" } }]));
  });
  files += 1;
  const config = join(dir, `settings-${files}.json`);
  const auditLog = join(dir, `audit-${files}.jsonl`);
  writeFileSync(config, JSON.stringify({ profiles: PROFILES, ...settings }));
  vi.stubEnv(
    "MCP_PROFILE_TOKENS",
    `alice=${TOKENS.alice}, carol=${TOKENS.carol}, bob=${TOKENS.bob}, dave=${TOKENS.dave}`,
  );
  const running = await serve(PETSTORE, {
    transport: "http",
    port: 0,
    baseUrl: `${api.url}/v1`,
    env: ENV,
    log: () => {},
    config,
    auditLog,
    auth: { type: "static", tokenEnv: "MCP_PROFILE_TOKENS" },
    ...options,
  });
  cleanups.push(() => running.close());
  const audit = () =>
    readFileSync(auditLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...running, audit };
}

async function legacy(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "legacy", version: "0.0.0" });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  cleanups.push(() => client.close());
  return client;
}

async function modern(url: string, token: string, options: ClientOptions = {}): Promise<ModernClient> {
  const client = new ModernClient({ name: "modern", version: "0.0.0" }, { ...PIN_2026, ...options });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  cleanups.push(() => client.close());
  return client;
}

/** What the tests need of a client of either era. */
interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}
const names = async (client: AnyClient): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);

describe("each principal sees and calls only its profile's tools", () => {
  it.each([
    ["a 2025-11-25 client in a session", {}, legacy],
    ["a 2025-11-25 client, stateless", { stateless: true }, legacy],
    ["a 2026-07-28 client", {}, (url: string, token: string) => modern(url, token)],
  ])("%s", async (_, options, connect) => {
    const running = await start({ options });
    const alice = (await connect(running.url!, TOKENS.alice)) as unknown as AnyClient;
    const bob = (await connect(running.url!, TOKENS.bob)) as unknown as AnyClient;
    const [aliceTools, bobTools] = await Promise.all([names(alice), names(bob)]);
    expect(aliceTools).toEqual(PETS_TOOLS);
    expect(bobTools).toEqual(["listPets"]);
    // Outside bob's profile, getPet is unknown to him exactly as a tool that does not exist.
    await expect(bob.callTool({ name: "getPet", arguments: { petId: 7 } })).rejects.toThrow("Unknown tool: getPet");
    await expect(bob.callTool({ name: "nope", arguments: {} })).rejects.toThrow("Unknown tool: nope");
    expect(api.requests).toEqual([]);
    const own = (await alice.callTool({ name: "getPet", arguments: { petId: 7 } })) as Result;
    expect(own.isError ?? false, textOf(own)).toBe(false);
    expect(api.requests.map((r) => r.url)).toEqual(["/v1/pets/7"]);
  });

  it("in dynamic mode, search_tools, describe_tool and call_tool know only the caller's tools", async () => {
    const running = await start({ options: { mode: "dynamic" } });
    const bob = await legacy(running.url!, TOKENS.bob);
    const alice = await legacy(running.url!, TOKENS.alice);
    const search = async (client: Client) =>
      textOf(await client.callTool({ name: "search_tools", arguments: { query: "pet", limit: 50 } }));
    expect(await search(bob)).toContain("listPets");
    expect(await search(bob)).not.toMatch(/getPet|createPet|deletePet/);
    expect(await search(alice)).toContain("getPet");
    const described = (await bob.callTool({ name: "describe_tool", arguments: { name: "getPet" } })) as Result;
    expect(described.isError).toBe(true);
    expect(textOf(described)).toContain("There is no tool named 'getPet'");
    const called = (await bob.callTool({
      name: "call_tool",
      arguments: { name: "getPet", arguments: { petId: 7 } },
    })) as Result;
    expect(textOf(called)).toContain("There is no tool named 'getPet'");
    expect(api.requests).toEqual([]);
  });
});

describe("state per principal", () => {
  it("budgets are per caller: alice's spent budget leaves carol's whole, in the same profile", async () => {
    const running = await start();
    const alice = await legacy(running.url!, TOKENS.alice);
    const carol = await legacy(running.url!, TOKENS.carol);
    const call = (client: Client) => client.callTool({ name: "getPet", arguments: { petId: 7 } }) as Promise<Result>;
    for (let i = 0; i < 2; i++) expect((await call(alice)).isError ?? false).toBe(false);
    const third = await call(alice);
    expect(third.isError).toBe(true);
    expect(textOf(third)).toContain("getPet was not sent: this caller's budget for getPet (2 per 60 s) is reached");
    for (let i = 0; i < 2; i++) {
      const result = await call(carol);
      expect(result.isError ?? false, textOf(result)).toBe(false);
    }
    expect(api.requests).toHaveLength(4);
  });

  it("an approval state asked for by alice is refused to carol, who shares her profile", async () => {
    const running = await start({ options: { stateless: true } });
    const manual = { capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } };
    const alice = await modern(running.url!, TOKENS.alice, manual);
    const carol = await modern(running.url!, TOKENS.carol, manual);
    type Pending = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    const pending = (await alice.callTool(
      { name: "deletePet", arguments: { petId: 7 } },
      { allowInputRequired: true },
    )) as unknown as Pending;
    expect(pending.resultType).toBe("input_required");
    const [questionId] = Object.keys(pending.inputRequests);
    const retry = {
      name: "deletePet",
      arguments: { petId: 7 },
      inputResponses: { [questionId!]: { action: "accept", content: { approve: true } } },
      requestState: pending.requestState,
    };
    const stolen = (await carol.callTool(retry, { allowInputRequired: true })) as Result;
    expect(textOf(stolen)).toContain("the approval was given for another caller");
    expect(api.requests).toEqual([]);
    const own = (await alice.callTool(retry, { allowInputRequired: true })) as Result;
    expect(own.isError ?? false, textOf(own)).toBe(false);
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["DELETE /v1/pets/7"]);
  });

  it("two callers racing: each result and audit line holds only its own caller's values", async () => {
    const running = await start();
    const alice = await legacy(running.url!, TOKENS.alice);
    const bob = await modern(running.url!, TOKENS.bob);
    const canary = (who: string, i: number) => `canary-${who}-${i}-7f3a`;
    const calls = (who: string, client: AnyClient) =>
      Array.from({ length: 20 }, async (_, i) => {
        const result = (await client.callTool({ name: "listPets", arguments: { tags: [canary(who, i)] } })) as Result;
        return { who, i, text: textOf(result) };
      });
    const results = await Promise.all([
      ...calls("alice", alice as unknown as AnyClient),
      ...calls("bob", bob as unknown as AnyClient),
    ]);
    for (const { who, i, text } of results) {
      expect(text).toContain(canary(who, i));
      expect(text).not.toContain(`canary-${who === "alice" ? "bob" : "alice"}-`);
    }
    const lines = running.audit();
    expect(lines).toHaveLength(40);
    for (const line of lines) {
      const who = line.principal === "static:alice" ? "alice" : "bob";
      expect(line).toMatchObject(
        who === "alice"
          ? { principal: "static:alice", profile: "pets" }
          : { principal: "static:bob", profile: "browse" },
      );
      const other = who === "alice" ? "bob" : "alice";
      expect(JSON.stringify(line)).not.toContain(`canary-${other}-`);
      for (const token of Object.values(TOKENS)) expect(JSON.stringify(line)).not.toContain(token);
    }
  });
});

describe("a caller no profile matches", () => {
  it("is refused on every request: 403 with a JSON-RPC error saying why", async () => {
    const running = await start();
    const port = Number(new URL(running.url!).port);
    const answer = await raw({
      port,
      headers: mcpHeaders(port, { authorization: `Bearer ${TOKENS.dave}` }),
      body: INITIALIZE,
    });
    expect(answer.status).toBe(403);
    const body = JSON.parse(answer.body) as { error: { code: number; message: string } };
    expect(body.error.message).toContain("no profile of this server matches this caller (static token dave)");
    await expect(modern(running.url!, TOKENS.dave)).rejects.toThrow();
    expect(api.requests).toEqual([]);
  });

  it.each([
    ["stdio", { transport: "stdio" as const, auth: undefined }],
    ["HTTP without --auth", { auth: undefined }],
  ])("refuses to start over %s without a default profile: nobody could match one", async (how, options) => {
    await expect(start({ options })).rejects.toThrow(
      `profiles without defaultProfile match verified callers only, and ${how} has none`,
    );
  });

  it("gets the default profile when there is one", async () => {
    const running = await start({ settings: { defaultProfile: "browse" } });
    expect(await names(await legacy(running.url!, TOKENS.dave))).toEqual(["listPets"]);
    expect(await names(await legacy(running.url!, TOKENS.alice))).toEqual(PETS_TOOLS);
  });
});

it("a 2026-07-28 client is told the listing is private to it", async () => {
  const running = await start();
  const client = await modern(running.url!, TOKENS.bob);
  expect(await client.listTools()).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });
});
