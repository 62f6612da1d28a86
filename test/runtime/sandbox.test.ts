// runScript as code mode uses it: values and log lines out, api calls in sequence and in parallel, api errors as
// rejections a script may catch, syntax and runtime errors with the script's own line and column, each limit ending
// the run with an outcome that names it and what was done before, cancellation, and nothing surviving a run.
// The worker runs from the build (npm run build first, as for every test).

import type { Unsettable } from "../support/fixtures.js";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SandboxPool } from "../../src/runtime/modes/sandbox/pool.js";
import { runScript } from "../../src/runtime/modes/sandbox/run-script.js";
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from "../../src/runtime/modes/sandbox/script.js";
import { recordingApi } from "../support/sandbox.js";

const TOOLS = ["issues_list", "issues_get", "repos_get"];

function run(code: string, limits: Unsettable<ScriptLimits> = {}, errors: Record<string, string> = {}) {
  const { api, calls } = recordingApi(errors);
  // A limit given as undefined takes its default.
  return runScript({ code, tools: TOOLS, api, limits: limits as Partial<ScriptLimits> }).then((outcome) => ({
    outcome,
    calls,
  }));
}

describe("a script's run", () => {
  it("returns its value (copied out as JSON) and its console lines; api calls go in sequence with JSON args", async () => {
    const { outcome, calls } = await run(`
      const list = await api.issues_list({ repo: "a", labels: ["bug"] });
      console.log("listed", list.tool, 2);
      console.warn({ n: 1 });
      const one = await api.issues_get({ id: list.args.labels.length });
      return { first: list.args, second: one.args, when: new Date(0), nothing: undefined };
    `);
    expect(outcome).toEqual({
      ok: true,
      value: { first: { repo: "a", labels: ["bug"] }, second: { id: 1 }, when: "1970-01-01T00:00:00.000Z" },
      logs: ["listed issues_list 2", 'warn: {"n":1}'],
      apiCalls: [
        { tool: "issues_list", ok: true },
        { tool: "issues_get", ok: true },
      ],
    });
    expect(calls).toEqual([
      { tool: "issues_list", args: { repo: "a", labels: ["bug"] } },
      { tool: "issues_get", args: { id: 1 } },
    ]);
  });

  it("runs api calls in parallel under Promise.all: all are asked before any is answered", async () => {
    const asked: string[] = [];
    let release: () => void = () => {};
    const allAsked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const outcome = await runScript({
      code: "return await Promise.all([1, 2, 3].map((id) => api.issues_get({ id })));",
      tools: TOOLS,
      api: async ({ args }) => {
        asked.push(JSON.stringify(args));
        if (asked.length === 3) release();
        await allAsked;
        return { ok: true, value: args };
      },
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.value).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(asked).toHaveLength(3);
  });

  it("rejects an api call whose answer is an error with exactly its message; the script may catch it", async () => {
    const message = 'GitHub answered 404 Not Found: {"message":"Not Found"}';
    const { outcome } = await run(
      `try { await api.repos_get({ repo: "gone" }); } catch (e) { return [e instanceof Error, e.message]; }`,
      {},
      { repos_get: message },
    );
    expect(outcome).toMatchObject({ ok: true, value: [true, message], apiCalls: [{ tool: "repos_get", ok: false }] });
  });

  it("ends with the api error as an exception when the script does not catch it", async () => {
    const { outcome } = await run("const repo = await api.repos_get({});\nreturn repo;", {}, { repos_get: "denied" });
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatchObject({ kind: "exception", message: "Error: denied" });
  });

  it("reports a syntax error at the line and column of the script as written", async () => {
    const { outcome, calls } = await run("const a = 1;\nconst b = a +;\nreturn b;");
    expect(outcome.error).toMatchObject({ kind: "syntax", line: 2, column: 14 });
    expect(outcome.error?.message).toMatch(/^SyntaxError: /);
    expect(calls).toEqual([]);
  });

  it("reports an exception with the line and column where it was thrown", async () => {
    const { outcome } = await run("const list = await api.issues_list({});\n\nreturn list.missing.length;");
    expect(outcome.error).toMatchObject({ kind: "exception", line: 3, column: 20 });
    expect(outcome.error?.message).toMatch(/^TypeError: .*length/);
    expect(outcome.apiCalls).toEqual([{ tool: "issues_list", ok: true }]);
  });

  it("says so when the script awaits something nothing can settle, at once", async () => {
    const { outcome } = await run("await new Promise(() => {});");
    expect(outcome.error).toMatchObject({
      kind: "exception",
      message: expect.stringMatching(/never|nothing can settle/),
    });
  });

  it("starts each run fresh: globals and prototypes changed by one run are not seen by the next", async () => {
    await run("globalThis.leftover = 1; Object.prototype.polluted = 2; Array.prototype.map = null; return 0;");
    const { outcome } = await run('return [typeof leftover, "polluted" in {}, typeof [].map];');
    expect(outcome.value).toEqual(["undefined", false, "function"]);
  });

  it("has a clock fixed at the run's start, to the second: today's date, no timing", async () => {
    const before = Date.now();
    const { outcome } = await run(`
      const first = Date.now();
      let spin = 0; for (let i = 0; i < 300000; i++) spin += i;
      return [first, Date.now(), new Date().getTime(), typeof performance, typeof setTimeout, typeof WeakRef];
    `);
    const [first, second, third, ...absent] = outcome.value as [number, number, number, ...string[]];
    expect(first).toBe(second);
    expect(third).toBe(first);
    expect(first % 1000).toBe(0);
    expect(first).toBeGreaterThan(before - 2000);
    expect(absent).toEqual(["undefined", "undefined", "undefined"]);
  });
});

describe("limits", () => {
  /** The outcome names the limit and says what was done before it. */
  function expectLimit(outcome: Awaited<ReturnType<typeof runScript>>, limit: keyof ScriptLimits): void {
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatchObject({ kind: "limit", limit });
    expect(outcome.error?.message).toContain(limit);
    expect(outcome.error?.message).toMatch(/after \d+ api calls? and \d+ log lines?/);
  }

  it("wallMs: a run waiting on a slow answer ends at its time limit, with the call made listed as unanswered", async () => {
    const outcome = await runScript({
      code: 'console.log("asking"); await api.issues_list({}); return "never";',
      tools: TOOLS,
      api: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true, value: [] }), 5_000).unref()),
      limits: { wallMs: 300 },
    });
    expectLimit(outcome, "wallMs");
    expect(outcome.error?.message).toContain("after 1 api call and 1 log line");
    expect(outcome).toMatchObject({ logs: ["asking"], apiCalls: [{ tool: "issues_list", ok: false }] });
  });

  it("cpuMs: a loop ends at the CPU limit, even one that catches what stops it", async () => {
    const { outcome } = await run(
      'await api.issues_list({}); console.log("looping"); for (;;) { try { for (;;) {} } catch (e) {} }',
      { cpuMs: 200 },
    );
    expectLimit(outcome, "cpuMs");
    expect(outcome).toMatchObject({ logs: ["looping"], apiCalls: [{ tool: "issues_list", ok: true }] });
  });

  it("memoryBytes: an allocation bomb ends at the memory limit", async () => {
    const { outcome } = await run("const all = []; for (;;) all.push(new Array(10000).fill(all.length));", {
      memoryBytes: 16 * 1024 * 1024,
    });
    expectLimit(outcome, "memoryBytes");
  });

  it("stackBytes: deep recursion ends at the stack limit", async () => {
    const { outcome } = await run("function down(n) { return down(n + 1) + 1; } return down(0);");
    expectLimit(outcome, "stackBytes");
  });

  it("stackBytes: a stack larger than the host's gives the same outcome, not a crash", async () => {
    const { outcome } = await run("function down(n) { return [n].map(() => down(n + 1)); } return down(0);", {
      stackBytes: 64 * 1024 * 1024,
    });
    expectLimit(outcome, "stackBytes");
    expect((await run("return 1 + 1;")).outcome.value).toBe(2);
  });

  it("maxApiCalls: the call past the limit ends the run; the calls before it were made", async () => {
    const { outcome, calls } = await run(
      "for (let i = 0; ; i++) { try { await api.issues_get({ id: i }); } catch {} }",
      {
        maxApiCalls: 3,
      },
    );
    expectLimit(outcome, "maxApiCalls");
    expect(calls.map((c) => c.args)).toEqual([{ id: 0 }, { id: 1 }, { id: 2 }]);
    expect(outcome.apiCalls).toHaveLength(3);
  });

  it("maxOutputBytes: log lines past the limit end the run, the lines before it kept", async () => {
    const { outcome } = await run('for (let i = 0; ; i++) console.log("line " + i);', { maxOutputBytes: 100 });
    expectLimit(outcome, "maxOutputBytes");
    expect(outcome.logs.slice(0, 2)).toEqual(["line 0", "line 1"]);
    expect(outcome.logs.join("\n").length).toBeLessThanOrEqual(100);
  });

  it("maxOutputBytes: a return value too large is refused before it is copied out", async () => {
    const { outcome } = await run('return "x".repeat(5000);', { maxOutputBytes: 1000 });
    expectLimit(outcome, "maxOutputBytes");
    expect(outcome.value).toBeUndefined();
  });

  it("has defaults for each limit, and a limit given as undefined keeps its default", async () => {
    expect(Object.keys(DEFAULT_SCRIPT_LIMITS).sort()).toEqual(
      ["cpuMs", "maxApiCalls", "maxOutputBytes", "memoryBytes", "stackBytes", "wallMs"].sort(),
    );
    const { outcome } = await run("for (;;) {}", { cpuMs: 100, wallMs: undefined });
    expectLimit(outcome, "cpuMs");
  });
});

describe("cancellation", () => {
  it("ends a spinning script when its signal aborts", async () => {
    const controller = new AbortController();
    const { api } = recordingApi();
    const running = runScript({ code: "for (;;) {}", tools: TOOLS, api, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const outcome = await running;
    expect(outcome.error).toMatchObject({ kind: "cancelled", message: expect.stringContaining("cancelled") });
  });

  it("ends a script waiting on an answer when its signal aborts", async () => {
    const controller = new AbortController();
    const running = runScript({
      code: "await api.issues_list({});",
      tools: TOOLS,
      api: () => new Promise(() => controller.abort()),
      signal: controller.signal,
    });
    expect((await running).error).toMatchObject({ kind: "cancelled" });
  });

  it("does not start a script whose signal has already aborted", async () => {
    const { api, calls } = recordingApi();
    const outcome = await runScript({
      code: "await api.issues_list({});",
      tools: TOOLS,
      api,
      signal: AbortSignal.abort(),
    });
    expect(outcome.error?.kind).toBe("cancelled");
    expect(calls).toEqual([]);
  });
});

describe("a worker that does not answer in time", () => {
  it("is terminated and replaced; the run ends at its time limit", async () => {
    const pool = new SandboxPool({
      size: 1,
      graceMs: 100,
      workerFile: new URL("../fixtures/sandbox/silent-worker.mjs", import.meta.url),
    });
    const { api } = recordingApi();
    const limits = { ...DEFAULT_SCRIPT_LIMITS, wallMs: 200 };
    const outcome = await pool.run({ code: "return 1;", tools: TOOLS, api, limits });
    expect(outcome.error).toMatchObject({ kind: "limit", limit: "wallMs" });
    expect(pool.workers).toBe(1);
  });
});

describe("a process with an idle pool", () => {
  const dist = new URL("../../dist/runtime/modes/sandbox/", import.meta.url).href;
  const silent = new URL("../fixtures/sandbox/silent-worker.mjs", import.meta.url).href;
  // Each ends by itself: no idle worker (warmed, started ahead, or replacing a terminated one) keeps it alive.
  it.each([
    ["warmed, no script run", `await warmSandbox(); console.log("warm");`, "warm"],
    [
      "after a run (a worker was started ahead meanwhile)",
      `const o = await runScript({ code: "return 2;", tools: [], api: async () => ({ ok: true }) }); console.log(o.value);`,
      "2",
    ],
    [
      "after a worker was terminated and replaced",
      `const pool = new SandboxPool({ size: 1, graceMs: 100, workerFile: new URL(${JSON.stringify(silent)}) });
       const o = await pool.run({ code: "return 1;", tools: [], api: async () => ({ ok: true }), limits: { ...DEFAULT_SCRIPT_LIMITS, wallMs: 200 } });
       console.log(o.error.limit);`,
      "wallMs",
    ],
  ])("exits when done: %s", (_, body, printed) => {
    const script = `import { runScript, warmSandbox } from "${dist}run-script.js";
import { DEFAULT_SCRIPT_LIMITS } from "${dist}script.js";
import { SandboxPool } from "${dist}pool.js";
${body}`;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(output.trim()).toBe(printed);
  });
});
