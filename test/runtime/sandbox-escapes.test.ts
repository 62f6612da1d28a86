// The escape set of issue 17: each script tries to reach the host, exhaust it or hang it. For each: the outcome
// (nothing of the host's in it), the host's own objects untouched, no api call the script was not allowed, and a
// timer on the main thread kept ticking while it ran (the longest stall well under the script's own CPU time).

import { describe, expect, it } from "vitest";
import { runScript } from "../../src/runtime/modes/sandbox/run-script.js";
import type { ScriptLimits, ScriptOutcome } from "../../src/runtime/modes/sandbox/script.js";
import { recordingApi, whileTicking } from "../support/sandbox.js";

const TOOLS = ["issues_list", "constructor", "__proto__", "toString"];
/** A CPU limit long enough that a sandbox on the main thread would show as a stall of at least this long. */
const CPU_MS = 600;
/** The main thread's longest stall we accept while a script spins on a worker (timer jitter on a busy machine). */
const STALL_MS = 300;

async function attempt(code: string, limits: Partial<ScriptLimits> = {}) {
  const { api, calls } = recordingApi();
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  const { result: outcome, maxGapMs } = await whileTicking(() =>
    runScript({ code, tools: TOOLS, api, limits: { cpuMs: CPU_MS, wallMs: 10_000, ...limits } }),
  );
  // Whatever the script did, the host's prototypes and globals are as they were.
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect({} as Record<string, unknown>).not.toHaveProperty("polluted");
  expect(maxGapMs).toBeLessThan(STALL_MS);
  return { outcome, calls };
}

function expectLimit(outcome: ScriptOutcome, limits: Array<keyof ScriptLimits>): void {
  expect(outcome.ok).toBe(false);
  expect(outcome.error?.kind).toBe("limit");
  expect(limits).toContain(outcome.error?.limit);
}

const HOST_NAMES = ["process", "require", "module", "Buffer", "global", "fetch", "setTimeout", "WebAssembly"];

describe("reaching the host", () => {
  it('constructor.constructor("return this")() is the sandbox\'s own global, with no host object on it', async () => {
    const { outcome } = await attempt(`
      const global = constructor.constructor("return this")();
      const viaApi = api.issues_list.constructor.constructor("return this")();
      return { same: global === viaApi && global === globalThis, names: Object.getOwnPropertyNames(global),
        host: ${JSON.stringify(HOST_NAMES)}.filter((name) => typeof global[name] !== "undefined") };
    `);
    expect(outcome.ok).toBe(true);
    expect(outcome.value).toMatchObject({ same: true, host: [] });
  });

  it("eval and Function inside reach only the sandbox", async () => {
    const { outcome } = await attempt(`
      return [
        eval("typeof process"), (0, eval)("typeof require"), Function("return typeof Buffer")(),
        (async function () {}).constructor("return typeof globalThis.process")() instanceof Promise,
        eval("this") === globalThis,
      ];
    `);
    expect(outcome.value).toEqual(["undefined", "undefined", "undefined", true, true]);
  });

  it("import() loads nothing: no module, no file, no network", async () => {
    for (const specifier of [
      "node:fs",
      "fs",
      "./worker.js",
      "data:text/javascript,export default 1",
      "http://127.0.0.1/x.js",
    ]) {
      const { outcome } = await attempt(`const m = await import(${JSON.stringify(specifier)}); return Object.keys(m);`);
      expect(outcome.ok, specifier).toBe(false);
      expect(outcome.error?.kind, specifier).toBe("exception");
    }
  });

  it("prototype pollution stays in the sandbox: the host's Object.prototype is untouched after the run", async () => {
    const { outcome, calls } = await attempt(`
      Object.prototype.polluted = "yes";
      ({}).__proto__.__proto__ = null;
      Array.prototype.push = () => { throw new Error("no"); };
      JSON.stringify = () => "{\\"forged\\":true}";
      const answer = await api.issues_list({ page: 1 });
      return answer.args;
    `);
    // JSON.stringify replaced inside changes nothing: the copies use the engine's own, taken before the script ran.
    expect(outcome).toMatchObject({ ok: true, value: { page: 1 } });
    expect(calls).toEqual([{ tool: "issues_list", args: { page: 1 } }]);
  });

  it("forged tool names do not exist, and the names of Object.prototype are plain tools", async () => {
    const { outcome, calls } = await attempt(`
      const missing = ["repos_delete", "hasOwnProperty", "valueOf"].map((name) => typeof api[name]);
      let thrown = "";
      try { await api.repos_delete({}); } catch (e) { thrown = e.constructor.name; }
      const own = [await api.constructor({ a: 1 }), await api.__proto__({ b: 2 }), await api.toString({})];
      return { missing, thrown, own: own.map((r) => r.tool), frozen: Object.isFrozen(api) };
    `);
    expect(outcome.value).toEqual({
      missing: ["undefined", "undefined", "undefined"],
      thrown: "TypeError",
      own: ["constructor", "__proto__", "toString"],
      frozen: true,
    });
    expect(calls.map((c) => c.tool)).toEqual(["constructor", "__proto__", "toString"]);
  });

  it("arguments that are getters or proxies are resolved inside: the host gets plain JSON", async () => {
    const { outcome, calls } = await attempt(`
      let reads = 0;
      const args = { get page() { reads++; return 2; }, filter: new Proxy({}, {
        ownKeys: () => ["state"],
        getOwnPropertyDescriptor: () => ({ value: "open", enumerable: true, configurable: true }),
        get: (_, key) => (key === "state" ? "open" : undefined),
      }) };
      await api.issues_list(args);
      return reads;
    `);
    expect(outcome.value).toBe(1);
    expect(calls).toEqual([{ tool: "issues_list", args: { page: 2, filter: { state: "open" } } }]);
    const [args] = calls.map((c) => c.args as Record<string, unknown>);
    expect(Object.getOwnPropertyDescriptor(args, "page")).toMatchObject({ value: 2 });
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });

  it("a proxy that throws or a getter that spins ends the call or the run inside the sandbox", async () => {
    const thrower = await attempt(`
      const args = new Proxy({}, { ownKeys() { throw new Error("trap"); } });
      try { await api.issues_list(args); } catch (e) { return e.message; }
    `);
    expect(thrower.outcome.value).toBe("trap");
    expect(thrower.calls).toEqual([]);
    const spinner = await attempt("await api.issues_list({ get page() { for (;;) {} } });");
    expectLimit(spinner.outcome, ["cpuMs"]);
    expect(spinner.calls).toEqual([]);
  });
});

describe("exhausting or hanging the host", () => {
  it("an infinite loop ends at the CPU limit while the main thread keeps ticking", async () => {
    expectLimit((await attempt("for (;;) {}")).outcome, ["cpuMs"]);
    expectLimit((await attempt("for (;;) { try { for (;;) {} } catch {} finally { continue; } }")).outcome, ["cpuMs"]);
  });

  it("catastrophic regular-expression backtracking ends at the CPU limit", async () => {
    expectLimit((await attempt('return /^(a+)+$/.test("a".repeat(40) + "b");')).outcome, ["cpuMs"]);
  });

  it("allocation bombs end at the memory limit", async () => {
    const limits = { memoryBytes: 32 * 1024 * 1024, cpuMs: 5_000 };
    for (const bomb of [
      "const all = []; for (;;) all.push(new Array(100000).fill(0));",
      "const all = []; for (let i = 0; ; i++) all.push({ i, list: [i, i, i] });",
      "return new Uint8Array(1024 * 1024 * 1024).length;",
      'let s = "ab"; for (;;) s = (s + s).split("").reverse().join("");',
    ]) {
      const { outcome } = await attempt(bomb, limits);
      expectLimit(outcome, ["memoryBytes"]);
    }
  });

  it("deep recursion ends at the stack limit, also when the script catches the overflow and recurses again", async () => {
    expectLimit((await attempt("function f() { return f() + 1; } return f();")).outcome, ["stackBytes"]);
    expectLimit((await attempt("function f() { try { f(); } catch { f(); } } f();")).outcome, ["stackBytes", "cpuMs"]);
  });

  it("promise storms end at a limit", async () => {
    for (const storm of [
      "function f() { Promise.resolve().then(f).then(f); } f(); await api.issues_list({});",
      "for (;;) new Promise((resolve) => resolve()).then(() => {});",
      "const chain = async (n) => chain(n + 1); await chain(0);",
    ]) {
      const { outcome } = await attempt(storm, { memoryBytes: 32 * 1024 * 1024 });
      expectLimit(outcome, ["cpuMs", "memoryBytes", "stackBytes"]);
    }
  });

  it("a 100 MB string returned is refused, at the memory limit or, given the memory, at the output limit", async () => {
    const code = 'return "x".repeat(100 * 1024 * 1024);';
    expectLimit((await attempt(code)).outcome, ["memoryBytes"]);
    const roomy = await attempt(code, { memoryBytes: 512 * 1024 * 1024 });
    expectLimit(roomy.outcome, ["maxOutputBytes"]);
    expect(JSON.stringify(roomy.outcome).length).toBeLessThan(10_000);
  });

  it("api call storms end at the call limit, no call past it reaching the host", async () => {
    const { outcome, calls } = await attempt(
      "await Promise.all(Array.from({ length: 1000 }, (_, i) => api.issues_list({ i })));",
      { maxApiCalls: 20 },
    );
    expectLimit(outcome, ["maxApiCalls"]);
    expect(calls.length).toBe(20);
  });
});
