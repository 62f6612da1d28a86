// Whose script gets a worker (src/runtime/modes/sandbox/turns.ts), on a real pool of two QuickJS workers: a caller never
// holds every worker, callers' queues are served in turn, and what waits is bounded per caller and overall, in
// count and bytes; past a bound, or the queue timeout, the script is refused saying which and to try again later,
// and it never runs. The worker runs from the build (npm run build first, as for every test).

import { describe, expect, it } from "vitest";
import { SandboxPool } from "../../src/runtime/modes/sandbox/pool.js";
import { runScript } from "../../src/runtime/modes/sandbox/run-script.js";
import type { ScriptOutcome, ScriptTurn } from "../../src/runtime/modes/sandbox/script.js";

/** The defaults (DEFAULT_SCRIPT_TURN), written out: --max-in-flight-per-principal, --max-queued, … */
const TURN: ScriptTurn = {
  principal: "",
  perPrincipal: 8,
  queue: 64,
  queueTimeoutMs: 30_000,
  maxQueued: 256,
  queueBytes: 16 * 2 ** 20,
  queueBytesPerPrincipal: 2 ** 20,
};

/** An api whose answers wait until `release()`; it records who called, in order. */
function heldApi() {
  const calls: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const api = async ({ args }: { tool: string; args: unknown }) => {
    calls.push((args as { who: string }).who);
    await held;
    return { ok: true as const, value: (args as { who: string }).who };
  };
  return { api, calls, release };
}

type Held = ReturnType<typeof heldApi>;

function start({
  pool,
  held,
  who,
  turn = {},
  pad = 0,
  signal,
}: {
  pool: SandboxPool;
  held: Held;
  who: string;
  turn?: Partial<ScriptTurn>;
  pad?: number;
  signal?: AbortSignal;
}): Promise<ScriptOutcome> {
  const principal = who.replace(/\d+$/, "");
  return runScript(
    {
      code: script(who, pad),
      tools: ["wait"],
      api: held.api,
      turn: { ...TURN, principal, ...turn },
      ...(signal ? { signal } : {}),
    },
    pool,
  );
}

/** A script of `who` calling the api once, with a comment of `pad` characters. */
const script = (who: string, pad = 0): string =>
  `return await api.wait({ who: ${JSON.stringify(who)} });${pad ? ` /*${"x".repeat(pad)}*/` : ""}`;

/** Resolves once `count` api calls were made. */
async function calls(held: Held, count: number): Promise<void> {
  while (held.calls.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("a caller's share of the workers", () => {
  it("one caller never holds every worker, and another's script runs ahead of its queue", async () => {
    const pool = new SandboxPool({ size: 2 });
    const held = heldApi();
    const flood = ["a1", "a2", "a3", "a4"].map((who) => start({ pool, held, who }));
    await calls(held, 1);
    const mine = start({ pool, held, who: "b1" });
    await calls(held, 2);
    // a2 to a4 wait for a's turn; b's script took the worker a left free.
    expect(held.calls).toEqual(["a1", "b1"]);
    held.release();
    const outcomes = await Promise.all([...flood, mine]);
    expect(outcomes.map((o) => o.value)).toEqual(["a1", "a2", "a3", "a4", "b1"]);
    expect(held.calls).toEqual(["a1", "b1", "a2", "a3", "a4"]);
  });

  it("callers waiting take turns: a caller's backlog never stands in front of another's script", async () => {
    const pool = new SandboxPool({ size: 2 });
    const held = heldApi();
    // Both workers busy: one of a's, one of c's; then a queues three and b one.
    const busy = [start({ pool, held, who: "a0" }), start({ pool, held, who: "c0" })];
    await calls(held, 2);
    const queued = ["a1", "a2", "a3", "b1"].map((who) => start({ pool, held, who }));
    held.release();
    await Promise.all([...busy, ...queued]);
    expect(held.calls.indexOf("b1")).toBeLessThan(held.calls.indexOf("a2"));
  });
});

describe("bounded queues: past a bound the script is refused at once, never run", () => {
  const PAD = 60_000;
  const large = script("a9", PAD).length;
  const busy = "The script was not run: you have 1 script running, the most one caller may run at once";
  /** `first` start in order, `running` of them on a worker (2 unless said), the rest waiting; then a9 is refused. */
  type Case = {
    name: string;
    turn: Partial<ScriptTurn>;
    first: string[];
    running?: number;
    pad?: number;
    message: string;
  };
  const cases: Case[] = [
    {
      name: "a caller's count (--max-queued)",
      turn: { queue: 2 },
      first: ["a1", "a2", "a3"],
      running: 1,
      message: `${busy}, and your queue is full (its bound: 2 waiting). Nothing was run; try again later.`,
    },
    {
      name: "a caller's bytes (--script-queue-bytes-per-principal)",
      turn: { queueBytesPerPrincipal: 100_000 },
      first: ["a1", "a2"],
      running: 1,
      pad: PAD,
      message: `${busy}, and your queue would hold more than its 100000 bytes with this script (${large} bytes). Nothing was run; try again later.`,
    },
    {
      name: "all callers' count (--script-max-queued)",
      turn: { maxQueued: 2 },
      first: ["b1", "c1", "b2", "c2"],
      message:
        "The script was not run: every worker is busy, and the server's queue is full (its bound: 2 waiting, all callers together). Nothing was run; try again later.",
    },
    {
      name: "all callers' bytes (--script-queue-bytes)",
      turn: { queueBytes: 100_000 },
      first: ["b1", "c1", "b2"],
      pad: PAD,
      message: `The script was not run: every worker is busy, and the server's queue would hold more than its 100000 bytes with this script (${large} bytes). Nothing was run; try again later.`,
    },
  ];

  it.each(cases)("$name", async ({ turn, first, pad = 0, running: on = 2, message }) => {
    const pool = new SandboxPool({ size: 2 });
    const held = heldApi();
    const running = first.map((who) => start({ pool, held, who, turn, pad }));
    await calls(held, on);
    const refused = await start({ pool, held, who: "a9", turn, pad });
    expect(refused).toEqual({ ok: false, error: { kind: "busy", message }, logs: [], apiCalls: [] });
    held.release();
    const outcomes = await Promise.all(running);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(held.calls).not.toContain("a9");
  });

  it("a script waiting past the queue timeout is refused, naming it; one cancelled while waiting leaves at once", async () => {
    const pool = new SandboxPool({ size: 2 });
    const held = heldApi();
    const turn = { queueTimeoutMs: 300 };
    const running = start({ pool, held, who: "a1", turn });
    await calls(held, 1);
    const late = await start({ pool, held, who: "a2", turn });
    expect(late.error).toEqual({
      kind: "busy",
      message:
        "The script was not run: you have 1 script running, the most one caller may run at once, and it waited 300 ms (the queue timeout) without a turn. Nothing was run; try again later.",
    });
    const stop = new AbortController();
    const cancelled = start({ pool, held, who: "a3", signal: stop.signal });
    stop.abort();
    expect((await cancelled).error).toEqual({
      kind: "cancelled",
      message: "The script was cancelled while it waited for a worker. Nothing was run.",
    });
    held.release();
    expect((await running).ok).toBe(true);
    expect(held.calls).toEqual(["a1"]);
  });
});
