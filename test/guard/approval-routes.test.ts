// `approvals: both`: the client (MCP elicitation) and the console's queue are asked at once; the first answer
// decides and the other question is withdrawn. Real SDK client in process, real upstream on loopback.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpEngine } from "../../src/app/setup.js";
import { example } from "../support/fixtures.js";
import { connectProvider, type Elicit, tempDir, textOf, writeFile } from "../support/guard.js";
import { status, Upstream } from "../support/upstream.js";

let api: Upstream;
const temp = tempDir();

beforeAll(async () => {
  api = await Upstream.start();
});
afterAll(async () => {
  await api.close();
  temp.remove();
});

async function both(elicit: Elicit) {
  api.reset();
  api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
  const config = writeFile(temp.dir, "both.json", { approvals: "both" });
  const setup = await setUpEngine(example("petstore.openapi.yaml"), {
    baseUrl: `${api.url}/v1`,
    env: { API_KEY_API_KEY: "pk-routes-1" },
    config,
    log: () => {},
  });
  const connected = await connectProvider(setup.engine, { elicit });
  return { ...setup, connected };
}

describe("approvals: both", () => {
  it("sends the call the console approves first, and withdraws the client's question", async () => {
    let withdrawn = false;
    let questions = 0;
    const { approvals, connected } = await both((_message, signal) => {
      // The SDK client ignores notifications/cancelled for request id 0, the session's first question: that one is
      // declined at once, so the question under test is one the client can be told is withdrawn.
      if (questions++ === 0) return { action: "decline" };
      return new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          withdrawn = true;
          resolve({ action: "cancel" });
        }),
      );
    });
    await connected.client.callTool({ name: "deletePet", arguments: { petId: 2 } });
    const calling = connected.client.callTool({ name: "deletePet", arguments: { petId: 3 } });
    await expect.poll(async () => (await approvals.pending()).length).toBe(1);
    await expect.poll(() => connected.asked.length).toBe(2);
    const [waiting] = await approvals.pending();
    expect(await approvals.decide({ id: waiting!.id, approve: true, by: "console:admin" })).toBe("decided");
    expect((await calling).isError).toBeFalsy();
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /v1/pets/3"]);
    await expect.poll(() => withdrawn).toBe(true);
    await connected.close();
  });

  it("stops the call the client declines first, and takes it off the console's queue", async () => {
    const { approvals, connected } = await both(() => ({ action: "decline" }));
    const result = await connected.client.callTool({ name: "deletePet", arguments: { petId: 4 } });
    expect(textOf(result)).toBe("deletePet was not sent: the person reviewing it declined.");
    expect(await approvals.pending()).toEqual([]);
    expect(api.requests).toHaveLength(0);
    await connected.close();
  });
});
