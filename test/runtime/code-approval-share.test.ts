// A script stopped for approval (a 2026-07-28 client, beginCall) keeps its earlier calls' answers in this process
// until the person answers, so the retry does not send them twice. What is kept is bounded; one caller's flood of
// stopped runs pushes out its own oldest, never another caller's: B's approval still resumes, its earlier call
// answered from what was kept. The real engine, code mode and sandbox, and the petstore example on 127.0.0.1.

import { afterAll, beforeAll, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { CodeProvider } from "../../src/runtime/modes/code-mode.js";
import { Engine } from "../../src/runtime/engine.js";
import type { BegunCall, ToolResult } from "../../src/runtime/types.js";
import { example } from "../support/fixtures.js";
import { json, status, Upstream } from "../support/upstream.js";

const SCRIPT = `const pet = await api.getPet({ petId: 7 });
await api.deletePet({ petId: 7 });
return "deleted " + pet.name;`;

let api: Upstream;
beforeAll(async () => {
  api = await Upstream.start();
  api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
  api.on("GET", /^\/v1\/pets\/\d+$/, json({ id: 7, name: "Rex", kind: { species: "dog" } }));
});
afterAll(() => api.close());

const stateOf = (begun: BegunCall): unknown => {
  if (!("approval" in begun)) throw new Error(`no approval asked: ${JSON.stringify(begun.result)}`);
  return begun.approval.state;
};
const textOf = (result: ToolResult): string => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

it("one caller's 250 stopped runs push out its own, not another's: B's approval resumes without sending again", async () => {
  const catalog = await loadCatalog(example("petstore.openapi.yaml"), { baseUrl: `${api.url}/v1` });
  const engine = new Engine({ catalog, env: { API_KEY_API_KEY: "pk-share-1" } });
  const provider = new CodeProvider({ engine, catalog });
  const begin = (principal: string) =>
    provider.beginCall({ name: "execute", args: { code: SCRIPT }, principal, context: {} });

  const mine = stateOf(await begin("static:b"));
  // More than the 200 runs kept in all; A's run one after another (its scripts take one worker at a time anyway).
  for (let i = 0; i < 250; i++) stateOf(await begin("static:a"));
  const gets = api.requests.filter((r) => r.method === "GET").length;
  const resumed = await provider.resumeCall({
    name: "execute",
    args: { code: SCRIPT },
    principal: "static:b",
    state: mine,
    answer: "accept",
    context: {},
  });

  expect(textOf(resumed)).toBe('{"value":"deleted Rex","calls":["getPet","deletePet"]}');
  // getPet was answered from what B's run kept, not sent again; the approved delete was sent once.
  expect(api.requests.filter((r) => r.method === "GET")).toHaveLength(gets);
  expect(api.requests.filter((r) => r.method === "DELETE")).toHaveLength(1);
}, 120_000);
