// Approvals across replicas that share Redis (--state): two `serve --transport http` with the same state secret,
// and a 2026-07-28 client whose requests a "load balancer" (its fetch) sends to whichever replica the test says.
// An approval used through one replica is refused when replayed through the other (each state sends one call, on
// every replica); with Redis stopped, a resume is refused with a clear result and nothing is sent, and the same
// approval goes out, once, when Redis is back.

import {
  type ClientOptions,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { example } from "../support/fixtures.js";
import { textOf } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { status, Upstream } from "../support/upstream.js";

const SECRET = "replicas-share-this-state-secret-0123456789";
const CLIENT: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: "2026-07-28" } },
  inputRequired: { autoFulfill: false },
};

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };
type Pending = { resultType: "input_required"; inputRequests: Record<string, unknown>; requestState: string };

let redis: RedisServer;
let api: Upstream;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  [redis, api] = await Promise.all([RedisServer.start(), Upstream.start()]);
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  api.reset();
});

async function replica(): Promise<RunningServer> {
  const running = await serve(example("petstore.openapi.yaml"), {
    transport: "http",
    port: 0,
    baseUrl: `${api.url}/v1`,
    env: { API_KEY_API_KEY: "pk-replicas" },
    stateSecrets: [SECRET],
    state: redis.url,
    cache: false,
    log: () => {},
  });
  cleanups.push(() => running.close());
  return running;
}

/** A client whose every request goes to `route.to`; `ask` asks for deletePet's approval, `answer` resumes. */
async function client(route: { to: RunningServer }) {
  const fetchVia = (_: string | URL | Request, init?: RequestInit) => fetch(route.to.url!, init);
  const modern = new ModernClient({ name: "balanced", version: "0.0.0" }, CLIENT);
  await modern.connect(new ModernTransport(new URL(route.to.url!), { fetch: fetchVia }));
  cleanups.push(() => modern.close());
  const args = { petId: 7 };
  const ask = async () =>
    (await modern.callTool({ name: "deletePet", arguments: args }, { allowInputRequired: true })) as unknown as Pending;
  const answer = async (pending: Pending): Promise<Result> => {
    const [questionId] = Object.keys(pending.inputRequests);
    const inputResponses = { [questionId!]: { action: "accept", content: { approve: true } } };
    const params = { name: "deletePet", arguments: args, inputResponses, requestState: pending.requestState };
    return (await modern.callTool(params, { allowInputRequired: true })) as Result;
  };
  return { ask, answer };
}

const deletes = (): string[] => api.requests.filter((r) => r.method === "DELETE").map((r) => r.url);

describe("replicas sharing Redis", () => {
  it("refuse an approval through replica B that was used through replica A: one approval, one call", async () => {
    api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
    const [a, b] = await Promise.all([replica(), replica()]);
    const route = { to: a };
    const { ask, answer } = await client(route);
    const pending = await ask();
    expect(pending.resultType).toBe("input_required");
    const sent = await answer(pending);
    expect(sent.isError ?? false, textOf(sent)).toBe(false);
    expect(deletes()).toEqual(["/v1/pets/7"]);
    route.to = b;
    const replayed = await answer(pending);
    expect(replayed.isError).toBe(true);
    expect(textOf(replayed)).toContain("deletePet was not sent again: this approval was used already");
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });

  it("refuse a resume while Redis is stopped, sending nothing, and send it once when Redis is back", async () => {
    api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
    const [a, b] = await Promise.all([replica(), replica()]);
    const route = { to: a };
    const { ask, answer } = await client(route);
    const pending = await ask();
    route.to = b;
    await redis.stop();
    try {
      const refused = await answer(pending);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(
        "deletePet was not sent: the shared state (Redis) that records used approvals is unreachable, so this approval cannot be checked against a replay. Try again in a minute.",
      );
      expect(deletes()).toEqual([]);
    } finally {
      await redis.resume();
    }
    // The client reconnects by itself (backoff up to 2 s); the approval, never used, is still good.
    await expect.poll(async () => (await answer(pending)).isError ?? false, { timeout: 10_000 }).toBe(false);
    expect(deletes()).toEqual(["/v1/pets/7"]);
    route.to = a;
    expect(textOf(await answer(pending))).toContain("this approval was used already");
    expect(deletes()).toEqual(["/v1/pets/7"]);
  });
});
