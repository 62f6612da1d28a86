// Approval inside a code mode script for MCP 2026-07-28 clients, through `serve --mode code` over HTTP and the SDK
// v2 client: the script's call needing approval ends the round with input_required, asking about the real tool;
// the client's retry runs the script again, answering the calls made before the question as they were answered
// (not sent twice), and the approved call is sent exactly once, or nothing when the person says no.

import {
  type ClientOptions,
  type ElicitRequestFormParams,
  type ElicitResult,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer, ServeOptions } from "../../src/app/serve-options.js";
import { example } from "../support/fixtures.js";
import { textOf } from "../support/guard.js";
import { json, status, Upstream } from "../support/upstream.js";

const PETSTORE = example("petstore.openapi.yaml");
const ENV = { API_KEY_API_KEY: "pk-modern-1" };
const PIN_2026 = { versionNegotiation: { mode: { pin: "2026-07-28" } } } satisfies ClientOptions;
const FORM = { capabilities: { elicitation: { form: {} } } } satisfies ClientOptions;
const YES: ElicitResult = { action: "accept", content: { approve: true } };
const SCRIPT = `const pet = await api.getPet({ petId: 7 });
console.log("deleting", pet.name);
try { await api.deletePet({ petId: 7 }); } catch (e) { return "kept: " + e.message; }
return "deleted " + pet.name;`;

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

let api: Upstream;
const cleanups: Array<() => unknown> = [];
beforeAll(async () => {
  api = await Upstream.start();
});
afterAll(() => api.close());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  api.reset();
  vi.unstubAllEnvs();
});

const sent = (): string[] => api.requests.map((r) => `${r.method} ${r.url}`);

async function start(options: ServeOptions = {}): Promise<RunningServer> {
  api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
  api.on("GET", /^\/v1\/pets\/\d+$/, json({ id: 7, name: "Rex", kind: { species: "dog" } }));
  const running = await serve(PETSTORE, {
    transport: "http",
    port: 0,
    baseUrl: `${api.url}/v1`,
    env: ENV,
    log: () => {},
    mode: "code",
    ...options,
  });
  cleanups.push(() => running.close());
  return running;
}

async function modernClient(url: string, answer: ElicitResult): Promise<{ client: ModernClient; asked: string[] }> {
  const client = new ModernClient({ name: "modern-approver", version: "0.0.0" }, { ...PIN_2026, ...FORM });
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push((request.params as ElicitRequestFormParams).message);
    return answer;
  });
  await client.connect(new ModernTransport(new URL(url)));
  cleanups.push(() => client.close());
  return { client, asked };
}

const execute = async (client: ModernClient) =>
  (await client.callTool({ name: "execute", arguments: { code: SCRIPT } })) as Result;

describe("a 2026-07-28 client approving a script's call", () => {
  it.each([false, true])("stateless %s: asked about the real tool; earlier calls not sent again", async (stateless) => {
    const running = await start({ stateless });
    const { client, asked } = await modernClient(running.url!, YES);
    const result = await execute(client);
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(JSON.parse(textOf(result))).toEqual({
      value: "deleted Rex",
      logs: ["deleting Rex"],
      calls: ["getPet", "deletePet"],
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("Tool: deletePet");
    expect(sent()).toEqual(["GET /v1/pets/7", "DELETE /v1/pets/7"]);
  });

  it("declined: the script's call rejects with the message a direct call gives; nothing is deleted", async () => {
    const running = await start();
    const { client, asked } = await modernClient(running.url!, { action: "decline" });
    const result = await execute(client);
    expect(asked).toHaveLength(1);
    expect(JSON.parse(textOf(result)).value).toContain("deletePet was not sent: the person reviewing it declined");
    expect(sent()).toEqual(["GET /v1/pets/7"]);
  });
});

const SECRET = "code-mode-replicas-secret-0123456789abcdef";
type Pending = { resultType: "input_required"; inputRequests: Record<string, unknown>; requestState: string };

/** A client that gets input_required back instead of answering it, to retry at another replica. */
async function manualClient(url: string): Promise<ModernClient> {
  const options = { ...PIN_2026, ...FORM, inputRequired: { autoFulfill: false } } satisfies ClientOptions;
  const client = new ModernClient({ name: "manual", version: "0.0.0" }, options);
  await client.connect(new ModernTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

async function askAndRetryElsewhere(code: string): Promise<Result> {
  const one = await start({ stateless: true, stateSecrets: [SECRET] });
  const two = await start({ stateless: true, stateSecrets: [SECRET] });
  const params = { name: "execute", arguments: { code } };
  const pending = (await (
    await manualClient(one.url!)
  ).callTool(params, {
    allowInputRequired: true,
  })) as unknown as Pending;
  expect(pending.resultType).toBe("input_required");
  const [questionId] = Object.keys(pending.inputRequests);
  // Built apart, as the SDK's own tests do: its published params type names neither key.
  const retry = { ...params, inputResponses: { [questionId!]: YES }, requestState: pending.requestState };
  return (await (await manualClient(two.url!)).callTool(retry, { allowInputRequired: true })) as Result;
}

describe("the retry at another replica", () => {
  it("after other calls: refused rather than sending them again; nothing deleted", async () => {
    const result = await askAndRetryElsewhere(SCRIPT);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("run the script again");
    expect(sent()).toEqual(["GET /v1/pets/7"]);
  });

  it("when the call needing approval came first: resumed there, sent once", async () => {
    const result = await askAndRetryElsewhere(`await api.deletePet({ petId: 7 }); return "done";`);
    expect(JSON.parse(textOf(result))).toEqual({ value: "done", calls: ["deletePet"] });
    expect(sent()).toEqual(["DELETE /v1/pets/7"]);
  });
});

describe("the caller", () => {
  it("a script's calls are made as the verified caller: the audit line names the same principal as a direct call's", async () => {
    const token = "code-mode-token-0123456789abcdef0123456789";
    const dir = mkdtempSync(join(tmpdir(), "code-audit-"));
    const auditLog = join(dir, "audit.jsonl");
    vi.stubEnv("MCP_CODE_TOKENS", token);
    const env = ENV;
    const running = await start({ env, auditLog, auth: { type: "static", tokenEnv: "MCP_CODE_TOKENS" } });
    const direct = await start({ env, auditLog, auth: { type: "static", tokenEnv: "MCP_CODE_TOKENS" }, mode: "tools" });
    for (const [url, call] of [
      [running.url!, { name: "execute", arguments: { code: "return (await api.getPet({ petId: 7 })).name;" } }],
      [direct.url!, { name: "getPet", arguments: { petId: 7 } }],
    ] as const) {
      const client = new ModernClient({ name: "caller", version: "0.0.0" }, PIN_2026);
      const headers = { authorization: `Bearer ${token}` };
      await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
      cleanups.push(() => client.close());
      const result = (await client.callTool(call)) as Result;
      expect(result.isError ?? false, textOf(result)).toBe(false);
    }
    const lines = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.tool, l.via])).toEqual([
      ["getPet", "execute"],
      ["getPet", undefined],
    ]);
    expect(lines[0]!.principal).toBeDefined();
    expect(lines[0]!.principal).toBe(lines[1]!.principal);
  });
});
