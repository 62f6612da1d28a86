// The console's approval queue is bounded: a call waiting for a person holds no in-flight slot, so without a count
// of its own one caller could keep any number of calls waiting (each holding arguments of up to 4 MiB). Past the
// bound a call is answered at once with nothing sent; other callers still queue; what the queue keeps of a call's
// arguments is the part a person is shown. The engine and a real upstream on loopback.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BoundedApprovalQueue } from "../../src/runtime/approvals/approval-bounds.js";
import { MemoryApprovalQueue } from "../../src/runtime/approvals/approval-queue.js";
import type { CallContext } from "../../src/runtime/types.js";
import { setUpEngine } from "../../src/app/setup.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

let api: Upstream;
const temp = tempDir();

beforeAll(async () => {
  api = await Upstream.start();
});
afterAll(async () => {
  await api.close();
  temp.remove();
});

async function notesServer() {
  api.reset();
  api.on("POST", "/notes", json({ ok: true }));
  const source = writeFile(temp.dir, "notes.actions.json", {
    name: "notes",
    baseUrl: api.url,
    actions: [
      {
        name: "addNote",
        description: "Add a note.",
        method: "POST",
        path: "/notes",
        approval: true,
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
      },
    ],
  });
  const config = writeFile(temp.dir, "settings.json", { approvals: "console", approvalTimeoutSeconds: 60 });
  return setUpEngine(source, { config, log: () => {} });
}

const as = (principal: string, signal?: AbortSignal): CallContext => ({
  caller: { principal, claims: {}, headers: {} },
  ...(signal ? { signal } : {}),
});

describe("the console's approval queue", () => {
  it("keeps at most 16 of one caller's calls waiting: the 17th is answered at once, nothing sent; others still queue", async () => {
    const { engine, approvals } = await notesServer();
    const stop = new AbortController();
    const waiting = Array.from({ length: 16 }, (_, i) =>
      engine.callTool("addNote", { text: `n${i}` }, as("alice", stop.signal)),
    );
    await expect.poll(async () => (await approvals.pending()).length).toBe(16);

    const refused = await engine.callTool("addNote", { text: "one more" }, as("alice"));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/addNote was not sent: too many calls are waiting .*16 of this caller's calls/);
    const bobs = engine.callTool("addNote", { text: "bob's" }, as("bob"));
    await expect.poll(async () => (await approvals.pending()).length).toBe(17);

    // One of alice's decided: she may queue again.
    const [first] = await approvals.pending();
    await approvals.decide({ id: first!.id, approve: false, by: "console:admin" });
    const again = engine.callTool("addNote", { text: "later" }, as("alice", stop.signal));
    await expect.poll(async () => (await approvals.pending()).length).toBe(17);

    stop.abort();
    await Promise.all([...waiting, again]);
    const bob = (await approvals.pending()).find((entry) => entry.principal === "bob");
    await approvals.decide({ id: bob!.id, approve: true, by: "console:admin" });
    const sent = await bobs;
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(api.requests.map((r) => JSON.parse(r.body.toString()).text)).toEqual(["bob's"]);
  });

  it("keeps of long arguments only the part a person is shown, and says how long they were", async () => {
    const { engine, approvals } = await notesServer();
    const stop = new AbortController();
    const text = "x".repeat(1_000_000);
    const calling = engine.callTool("addNote", { text }, as("carol", stop.signal));
    await expect.poll(async () => (await approvals.pending()).length).toBe(1);
    const [entry] = await approvals.pending();
    expect(JSON.stringify(entry).length).toBeLessThan(10_000);
    const { approvalMessage } = await import("../../src/runtime/approvals/approval-message.js");
    expect(approvalMessage(entry!.request)).toContain(
      "Arguments, shown in part: the first 4,000 of 1,000,016 characters (996,016 not shown):",
    );
    stop.abort();
    expect(textOf(await calling)).toMatch(/not sent/);
    expect(api.requests).toEqual([]);
  });

  it("counts every caller against the whole queue's bound", async () => {
    const queue = new BoundedApprovalQueue(new MemoryApprovalQueue(), { perCaller: 2, total: 3 });
    const stop = new AbortController();
    const request = {
      tool: "t",
      title: "t",
      method: "POST",
      url: "https://api.example/t",
      arguments: {},
      effect: "write" as const,
      timeoutMs: 60_000,
    };
    const asked = ["a", "b", "c"].map((principal) => queue.ask({ request, principal, signal: stop.signal }));
    expect(await queue.ask({ request, principal: "d" })).toEqual({ answer: "busy", busy: "3 calls in all" });
    expect((await queue.pending()).length).toBe(3);
    stop.abort();
    expect((await Promise.all(asked)).map((outcome) => outcome.answer)).toEqual(["cancel", "cancel", "cancel"]);
    expect(await queue.ask({ request, principal: "d", signal: AbortSignal.abort() })).toEqual({ answer: "cancel" });
  });
});
