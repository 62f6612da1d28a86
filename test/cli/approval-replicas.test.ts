// Approval across replicas, as an operator runs them: two `serve --transport http` processes (the built CLI) with
// the same MCP_STATE_SECRET in front of the same upstream, and the SDK v2 client on MCP 2026-07-28 behind a
// "load balancer" (its fetch) that sends the retry carrying the answer to the other process. The first process
// asks (input_required) and sends nothing; the second resumes the call and sends it, exactly once. A state that
// was changed, or used already, sends nothing. Over stdio, the 2026-07-28 client is asked the same way.

import {
  type ClientOptions,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../support/cli.js";
import { example } from "../support/fixtures.js";
import { spawnCli, textOf, waitFor } from "../support/guard.js";
import { status, Upstream } from "../support/upstream.js";

const PETSTORE = example("petstore.openapi.yaml");
const SECRET = "replicas-share-this-state-secret-0123456789";
const CLIENT: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: "2026-07-28" } },
};

type Replica = { url: string; stderr: () => string; stop: () => Promise<void> };
type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };
type Pending = { resultType: "input_required"; inputRequests: Record<string, unknown>; requestState: string };

let api: Upstream;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  api = await Upstream.start();
});
afterAll(() => api.close());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  api.reset();
});

/** One `serve` process on a free port, its audit lines on stderr. */
async function replica(secret = SECRET): Promise<Replica> {
  const args = ["serve", PETSTORE, "--transport", "http", "--port", "0", "--base-url", `${api.url}/v1`];
  const spawned = spawnCli([...args, "--audit-log", "-"], { API_KEY_API_KEY: "pk-replicas", MCP_STATE_SECRET: secret });
  const stop = async () => {
    spawned.child.kill("SIGTERM");
    await spawned.exited;
  };
  cleanups.push(stop);
  const listening = /serving \d+ tools at (http:\/\/\S+\/mcp)/;
  await waitFor(() => listening.test(spawned.stderr()) || spawned.child.exitCode !== null, 20_000);
  const url = listening.exec(spawned.stderr())?.[1];
  if (!url) throw new Error(`serve did not start:\n${spawned.stderr()}`);
  return { url, stderr: spawned.stderr, stop };
}

/** The client, connected to `first`; every POST carrying a request state goes to `second` instead. */
async function balancedClient({
  first,
  second,
  manual = false,
}: {
  first: Replica;
  second: Replica;
  manual?: boolean;
}): Promise<{ client: ModernClient; routed: string[] }> {
  const routed: string[] = [];
  const fetchVia = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const retry = typeof init?.body === "string" && init.body.includes('"requestState"');
    routed.push(retry ? "second" : "first");
    return fetch(retry ? second.url : input, init);
  };
  const options = manual ? { ...CLIENT, inputRequired: { autoFulfill: false } } : CLIENT;
  const client = new ModernClient({ name: "balanced", version: "0.0.0" }, options);
  client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { approve: true } }));
  await client.connect(new ModernTransport(new URL(first.url), { fetch: fetchVia }));
  cleanups.push(() => client.close());
  return { client, routed };
}

const deletes = (): string[] => api.requests.filter((r) => r.method === "DELETE").map((r) => r.url);
/** The audit lines a process wrote for deletePet. */
const audited = (r: Replica): string[] =>
  r
    .stderr()
    .split("\n")
    .filter((line) => line.includes('"tool":"deletePet"'));

describe("two serve processes with the same MCP_STATE_SECRET", () => {
  it("the first asks, the second resumes and sends the call, exactly once", async () => {
    api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
    const [first, second] = await Promise.all([replica(), replica()]);
    const { client, routed } = await balancedClient({ first, second });
    const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    // The call went to the first process, its retry with the answer to the second.
    expect(routed.slice(-2)).toEqual(["first", "second"]);
    expect(deletes()).toEqual(["/v1/pets/7"]);
    expect(audited(first)).toEqual([]);
    expect(audited(second)).toHaveLength(1);
    expect(audited(second)[0]).toContain('"outcome":"ok"');
  });

  it("a state changed on the way, or used already, sends nothing", async () => {
    api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
    const [first, second] = await Promise.all([replica(), replica()]);
    const { client } = await balancedClient({ first, second, manual: true });
    const pending = (await client.callTool(
      { name: "deletePet", arguments: { petId: 7 } },
      { allowInputRequired: true },
    )) as unknown as Pending;
    expect(pending.resultType).toBe("input_required");
    const [questionId] = Object.keys(pending.inputRequests);
    const retry = async (requestState: string): Promise<Result> => {
      // The retry's own fields (SEP-2322), which the client's typed callTool does not name.
      const answer = { action: "accept", content: { approve: true } };
      const inputResponses = { [questionId!]: answer };
      const params = { name: "deletePet", arguments: { petId: 7 }, inputResponses, requestState };
      return (await client.callTool(params, { allowInputRequired: true })) as Result;
    };
    const state = pending.requestState;
    const changed = await retry(`${state.slice(0, 10)}${state[10] === "A" ? "B" : "A"}${state.slice(11)}`);
    expect(textOf(changed)).toContain("the approval state is not one this server signed");
    expect(deletes()).toEqual([]);
    expect((await retry(state)).isError ?? false).toBe(false);
    const replayed = await retry(state);
    expect(textOf(replayed)).toContain("this approval was used already");
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });

  it("a process with another secret refuses the state, saying why; nothing is sent", async () => {
    api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
    const [first, second] = await Promise.all([replica(), replica("another-secret-of-another-replica-98765")]);
    const { client } = await balancedClient({ first, second });
    const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("every replica needs the same --state-secret");
    expect(deletes()).toEqual([]);
  });
});

describe("serve over stdio", () => {
  it.each<[string, "accept" | "decline", string[]]>([
    ["approved: sent once", "accept", ["/v1/pets/7"]],
    ["declined: nothing sent", "decline", []],
  ])("a 2026-07-28 client is asked through input_required; %s", async (_, action, sent) => {
    api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
    const transport = new ModernStdio({
      command: process.execPath,
      args: [CLI, "serve", PETSTORE, "--base-url", `${api.url}/v1`],
      env: { ...(process.env as Record<string, string>), API_KEY_API_KEY: "pk-stdio" },
      stderr: "pipe",
    });
    const client = new ModernClient({ name: "stdio-modern", version: "0.0.0" }, CLIENT);
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(String(request.params.message));
      return action === "accept" ? { action, content: { approve: true } } : { action };
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe("modern");
    const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(action !== "accept");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("Nothing is sent unless you approve.");
    expect(deletes()).toEqual(sent);
  });
});
