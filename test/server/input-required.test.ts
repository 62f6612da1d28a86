// Approval for MCP 2026-07-28 clients, through `serve` over HTTP and the SDK v2 client: a tool that needs approval
// answers input_required with the same question a 2025 client is asked through elicitation; the client's retry
// with the person's answer sends the request (exactly once) or nothing. The retry's request state is checked:
// changed, used before, or brought back for other arguments or by another caller, it sends nothing.

import {
  type ClientOptions,
  type ElicitRequestFormParams,
  type ElicitResult,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
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

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };
type Asked = { message: string; requestedSchema: ElicitRequestFormParams["requestedSchema"] };

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

const deletes = (): string[] => api.requests.filter((r) => r.method === "DELETE").map((r) => r.url);

async function start(options: ServeOptions = {}): Promise<RunningServer> {
  api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
  api.on("GET", /^\/v1\/pets\/\d+$/, json({ id: 7, name: "Rex", kind: { species: "dog" } }));
  const running = await serve(PETSTORE, {
    transport: "http",
    port: 0,
    baseUrl: `${api.url}/v1`,
    env: ENV,
    log: () => {},
    ...options,
  });
  cleanups.push(() => running.close());
  return running;
}

/** The SDK v2 client on 2026-07-28, answering each question as `answer` says and keeping what it was asked. */
async function modernClient(
  url: string,
  answer: ElicitResult,
  { options = FORM, token }: { options?: ClientOptions; token?: string } = {},
): Promise<{ client: ModernClient; asked: Asked[] }> {
  const client = new ModernClient({ name: "modern-approver", version: "0.0.0" }, { ...PIN_2026, ...options });
  const asked: Asked[] = [];
  if (options.capabilities?.elicitation)
    client.setRequestHandler("elicitation/create", (request) => {
      const params = request.params as ElicitRequestFormParams;
      asked.push({ message: params.message, requestedSchema: params.requestedSchema });
      return answer;
    });
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(new ModernTransport(new URL(url), headers ? { requestInit: { headers } } : {}));
  cleanups.push(() => client.close());
  expect(client.getProtocolEra()).toBe("modern");
  return { client, asked };
}

const YES: ElicitResult = { action: "accept", content: { approve: true } };

describe("a 2026-07-28 client is asked through input_required", () => {
  it.each([false, true])("stateless %s: approved, the call is sent exactly once", async (stateless) => {
    const running = await start({ stateless });
    const { client, asked } = await modernClient(running.url!, YES);
    const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain("Tool: deletePet");
    expect(asked[0]!.message).toContain("No answer within 5 minutes counts as no.");
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });

  it("with the same question, word for word, as a 2025 client is asked through elicitation", async () => {
    const running = await start();
    const older = new Client({ name: "older", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
    const olderAsked: Asked[] = [];
    older.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as ElicitRequestFormParams;
      olderAsked.push({ message: params.message, requestedSchema: params.requestedSchema });
      return { action: "decline" };
    });
    await older.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
    cleanups.push(() => older.close());
    const { client, asked } = await modernClient(running.url!, { action: "decline" });
    await older.callTool({ name: "deletePet", arguments: { petId: 7 } });
    await client.callTool({ name: "deletePet", arguments: { petId: 7 } });
    expect(asked).toEqual(olderAsked);
    expect(asked).toHaveLength(1);
  });

  it.each<[string, ElicitResult, string]>([
    ["declined", { action: "decline" }, "declined"],
    ["cancelled", { action: "cancel" }, "cancelled"],
    ["accepted with the box unticked", { action: "accept", content: { approve: false } }, "declined"],
  ])("%s: nothing is sent, and the result says so", async (_, answer, said) => {
    const running = await start();
    const { client, asked } = await modernClient(running.url!, answer);
    const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
    expect(asked).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`deletePet was not sent: the person reviewing it ${said}`);
    expect(deletes()).toEqual([]);
  });

  it("a client that declares no elicitation is told it cannot be asked; nothing is sent", async () => {
    const running = await start();
    const { client, asked } = await modernClient(running.url!, YES, { options: {} });
    const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("this client cannot ask for it");
    expect(asked).toEqual([]);
    expect(deletes()).toEqual([]);
  });

  it("in dynamic mode, call_tool asks about the tool it calls, and sends it once approved", async () => {
    const running = await start({ mode: "dynamic" });
    const { client, asked } = await modernClient(running.url!, YES);
    const call = { name: "call_tool", arguments: { name: "deletePet", arguments: { petId: 7 } } };
    const result = (await client.callTool(call)) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain("Tool: deletePet");
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });

  it("tools that need no approval are called at once", async () => {
    const running = await start();
    const { client, asked } = await modernClient(running.url!, YES);
    const result = (await client.callTool({ name: "getPet", arguments: { petId: 7 } })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(asked).toEqual([]);
  });
});

/** The client in manual mode: the input_required result comes back to the test, which retries as it likes. */
async function manualClient(url: string, token?: string): Promise<ModernClient> {
  const options = { ...FORM, inputRequired: { autoFulfill: false } } satisfies ClientOptions;
  return (await modernClient(url, YES, { options, ...(token ? { token } : {}) })).client;
}

type Pending = { resultType: "input_required"; inputRequests: Record<string, unknown>; requestState: string };

async function ask(client: ModernClient, petId = 7): Promise<Pending> {
  const first = (await client.callTool(
    { name: "deletePet", arguments: { petId } },
    { allowInputRequired: true },
  )) as unknown as Pending;
  expect(first.resultType).toBe("input_required");
  return first;
}

async function retry(
  client: ModernClient,
  pending: Pending,
  { petId = 7, state = pending.requestState }: { petId?: number; state?: string } = {},
): Promise<Result> {
  const [questionId] = Object.keys(pending.inputRequests);
  const params = {
    name: "deletePet",
    arguments: { petId },
    inputResponses: { [questionId!]: YES },
    requestState: state,
  };
  return (await client.callTool(params, { allowInputRequired: true })) as Result;
}

describe("the state the retry brings back", () => {
  it("changed by the client: refused, nothing sent", async () => {
    const running = await start({ stateless: true });
    const client = await manualClient(running.url!);
    const pending = await ask(client);
    const state = pending.requestState;
    const changed = `${state[0] === "A" ? "B" : "A"}${state.slice(1)}`;
    const result = await retry(client, pending, { state: changed });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("the approval state is not one this server signed");
    expect(deletes()).toEqual([]);
  });

  it("used twice: the second time is refused", async () => {
    const running = await start({ stateless: true });
    const client = await manualClient(running.url!);
    const pending = await ask(client);
    expect((await retry(client, pending)).isError ?? false).toBe(false);
    const again = await retry(client, pending);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain("this approval was used already");
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });

  it("brought back for other arguments: refused, nothing sent", async () => {
    const running = await start({ stateless: true });
    const client = await manualClient(running.url!);
    const pending = await ask(client, 7);
    const result = await retry(client, pending, { petId: 8 });
    expect(textOf(result)).toContain("the approval was given for other arguments");
    expect(deletes()).toEqual([]);
  });

  it("brought back by another caller (endpoint auth): refused, nothing sent; its own caller can use it", async () => {
    const alice = "alice-token-0123456789abcdef0123456789";
    const bob = "bob-token-0123456789abcdef0123456789abc";
    vi.stubEnv("MCP_TEST_TOKENS", `${alice},${bob}`);
    const running = await start({ stateless: true, auth: { type: "static", tokenEnv: "MCP_TEST_TOKENS" } });
    const asAlice = await manualClient(running.url!, alice);
    const asBob = await manualClient(running.url!, bob);
    const pending = await ask(asAlice);
    const stolen = await retry(asBob, pending);
    expect(textOf(stolen)).toContain("the approval was given for another caller");
    expect(deletes()).toEqual([]);
    const own = await retry(asAlice, pending);
    expect(own.isError ?? false, textOf(own)).toBe(false);
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });
});
