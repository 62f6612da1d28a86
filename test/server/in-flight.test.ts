// In-flight bounds end to end: the real engine behind the streamable HTTP endpoint with two static-token callers,
// each an SDK client. One floods; the upstream never sees more than the origin's limit at once, the flood's excess
// is told to try again later, and the other caller's call is served in its turn, not behind the flood's queue.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OpenAPI } from "openapi-types";
import { afterEach, expect, it, onTestFinished, vi } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import { serveHttp } from "../../src/server/http.js";
import { busyUpstream, SLOW_API } from "../support/busy-upstream.js";

const FLOODER = "in-flight-test-token-flooder-0123456789";
const STEADY = "in-flight-test-token-steady-9876543210";

afterEach(() => {
  vi.unstubAllEnvs();
});

async function client(url: string, token: string): Promise<Client> {
  const connected = new Client({ name: "in-flight", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await connected.connect(transport);
  onTestFinished(() => connected.close());
  return connected;
}

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }> };

it("two callers over HTTP: the flood is capped and queued, its excess told to retry later, the other served in turn", async () => {
  // Long enough for all 30 calls to reach the gate before the first 4 end, even on a busy host.
  const busy = await busyUpstream({ delayMs: 1_000, capacity: 4 });
  onTestFinished(() => busy.api.close());
  const catalog = await loadCatalog({ document: SLOW_API as OpenAPI.Document }, { baseUrl: busy.api.url });
  const engine = new Engine({
    catalog,
    env: {},
    retryDelaysMs: [],
    maxInFlight: 4,
    maxInFlightPerPrincipal: 4,
    maxQueued: 10,
  });
  vi.stubEnv("MCP_IN_FLIGHT_TOKENS", `${FLOODER},${STEADY}`);
  const handle = await serveHttp({
    provider: engine,
    name: "in-flight",
    version: "1.0.0",
    port: 0,
    auth: { type: "static", tokenEnv: "MCP_IN_FLIGHT_TOKENS" },
    log: () => {},
  });
  onTestFinished(() => handle.close());
  const flooder = await client(handle.url, FLOODER);
  const steady = await client(handle.url, STEADY);

  let floodAnswered = 0;
  const flood = Array.from({ length: 30 }, async () => {
    const result = (await flooder.callTool({ name: "slow", arguments: {} })) as Result;
    if (!result.isError) floodAnswered++;
    return result;
  });
  await busy.api.received(4);
  const mine = (await steady.callTool({ name: "slow", arguments: {} })) as Result;
  const answeredBeforeMine = floodAnswered;
  const results = await Promise.all(flood);

  expect(mine.isError).toBeFalsy();
  // Served in turn: behind at most a round or two of the flood's calls, not its queue of 10 as well.
  expect(answeredBeforeMine).toBeLessThan(10);
  expect(busy.seen.peak).toBeLessThanOrEqual(4);
  const refused = results.filter((r) => r.isError);
  expect(refused).toHaveLength(30 - 4 - 10);
  expect(refused[0]?.content[0]?.text).toBe(
    `slow was not sent: the limit of 4 calls in flight per caller to ${busy.api.url} is reached and 10 more of your calls are already waiting there (the queue's bound). Nothing was sent; try again later, when fewer of your calls are in flight.`,
  );
  expect(busy.seen.requests).toBe(4 + 10 + 1);
});
