// The direct part of the wire fingerprint: what programs call on the engine itself rather than through MCP (the
// `call` command's dry run and call, beginCall and resumeCall with good, used, rebound and forged states, the policy
// it reports), with the requests that reached the upstream and the audit lines.

import { normalize } from "./calls.mjs";
import { sha } from "./listings.mjs";
import { SECRETS } from "./scenarios.mjs";
import { json, status } from "./upstream.mjs";

const WIRE = "test/fixtures/e2e/wire.openapi.yaml";

export async function directLines({ lib, up }) {
  const catalog = await lib.loadCatalog(WIRE, { baseUrl: `${up.url}/v1` });
  const audit = [];
  const options = { catalog, audit: { write: (record) => audit.push(record) }, retryDelaysMs: [5] };
  const engine = new lib.Engine({ ...options, env: { ...SECRETS } });
  const bare = new lib.Engine({ ...options, env: {} });
  const lines = [];
  const line = (what, value) => {
    const seen = { value, requests: up.requests, audit: audit.map(({ time, durationMs, ...rest }) => rest) };
    const text = normalize({ text: JSON.stringify(seen, replacer), ports: [up.port] });
    lines.push(`direct ${what}: ${sha(text)}`);
    up.reset();
    audit.length = 0;
  };
  const dryRuns = [
    ["withBearerOrBasic", {}],
    ["jsonBody", { body: { name: "w" } }],
    ["getItem", { id: 0 }],
    ["withQueryKey", { q: "a b" }],
    ["withKeyPair", {}],
  ];
  for (const [tool, args] of dryRuns) {
    line(`prepare ${tool}`, await engine.prepare(tool, args, { dryRun: true }));
    line(`prepare bare ${tool}`, await bare.prepare(tool, args, { dryRun: true }));
    line(`prepare bare wet ${tool}`, await bare.prepare(tool, args));
  }
  const call = { name: "deleteThing", args: { id: 9 }, principal: "p1" };
  up.on("DELETE", "/v1/things/9", status(204));
  const begun = await engine.beginCall(call);
  line("begin", stateless(begun));
  const { state } = begun.approval;
  up.on("DELETE", "/v1/things/9", status(204));
  line("resume accept", await engine.resumeCall({ ...call, state, answer: "accept" }));
  line("resume used", await engine.resumeCall({ ...call, state, answer: "accept" }));
  const other = (await engine.beginCall(call)).approval.state;
  line("resume other args", await engine.resumeCall({ ...call, args: { id: 8 }, state: other, answer: "accept" }));
  const third = (await engine.beginCall(call)).approval.state;
  line("resume other caller", await engine.resumeCall({ ...call, principal: "p2", state: third, answer: "accept" }));
  line("resume forged", await engine.resumeCall({ ...call, state: "forged.state", answer: "accept" }));
  const fourth = (await engine.beginCall(call)).approval;
  const answer = (id) => (id === fourth.questionId ? "decline" : "accept");
  line("resume declined", await engine.resumeCall({ ...call, state: fourth.state, answer }));
  const fifth = (await engine.beginCall(call)).approval.state;
  line("resume bad args", await engine.resumeCall({ ...call, args: { id: "x" }, state: fifth, answer: "accept" }));
  up.on("GET", "/v1/items/7", json({ id: 7, name: "seven" }));
  line("begin allowed", await engine.beginCall({ name: "getItem", args: { id: 7 } }));
  line("begin unknown", await engine.beginCall({ name: "nope", args: {} }));
  line("policy", [engine.policyOf("deleteThing"), engine.policyOf("getItem"), engine.policyOf("nope")]);
  line("names", [engine.listToolNames(), engine.hasTool("getItem"), engine.hasTool("nope")]);
  const setup = { baseUrl: `${up.url}/v1`, env: { ...SECRETS }, cache: false, allowInsecureHttp: true, log() {} };
  line("call dry run", await lib.callTool(WIRE, { ...setup, tool: "withKeyPair", args: {}, dryRun: true }));
  up.on("DELETE", "/v1/things/9", status(204));
  line("call", await lib.callTool(WIRE, { ...setup, tool: "deleteThing", args: { id: 9 } }));
  line("call by operation", await lib.callTool(WIRE, { ...setup, tool: "getItem", args: { id: 0 } }));
  return lines;
}

/** A begun call with its approval's random question id and signed state taken out. */
function stateless(begun) {
  if (!("approval" in begun)) return begun;
  const { questionId: _id, state: _state, ...approval } = begun.approval;
  return { approval };
}

/** A prepared request's tool by name; bytes as base64. */
function replacer(key, value) {
  if (key === "tool" && value && typeof value === "object" && "operation" in value) return value.name;
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (value?.type === "Buffer" && Array.isArray(value.data)) return Buffer.from(value.data).toString("base64");
  return value;
}
