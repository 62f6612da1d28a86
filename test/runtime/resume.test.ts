// Approval without a waiting server (Engine.beginCall/resumeCall): one engine asks and hands out a signed state, a
// second engine (another replica, the same secret) resumes the call from it and the person's answer, and sends
// exactly one request to a real upstream on loopback. A forged, expired, replayed or re-bound state, or a "no",
// sends nothing.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import type { AuditRecord } from "../../src/runtime/audit/audit-record.js";
import { DynamicProvider } from "../../src/runtime/modes/dynamic.js";
import { Engine } from "../../src/runtime/engine.js";
import { parsePolicies } from "../../src/runtime/approvals/policy.js";
import { RequestStates } from "../../src/runtime/approvals/approval-states.js";
import type { PendingApproval, ToolResult } from "../../src/runtime/types.js";
import { MemoryUsedNonces, type UsedNonces } from "../../src/runtime/approvals/used-nonces.js";
import { fixture } from "../support/fixtures.js";
import { json, status, Upstream } from "../support/upstream.js";

const SECRET = "replicas-share-this-secret-0123456789";
const KEY = "pk-test-4821";
const LIFETIME = 5 * 60_000;
const PET = { body: { name: "Rex", kind: { species: "dog", goodBoy: true }, tags: ["a", "b"] } };

let upstream: Upstream;
let catalog: Catalog;
let time: number;
/** Used nonces shared by the replicas, as issue 16's shared store will be. */
let nonces: UsedNonces;

beforeAll(async () => {
  upstream = await Upstream.start();
  catalog = await loadCatalog(fixture("../../examples/petstore.openapi.yaml"), { baseUrl: upstream.url });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.reset();
  upstream
    .on("DELETE", /^\/pets\/\d+$/, status(204))
    .on("POST", "/pets", json({ id: 1, ...PET.body }, { status: 201 }));
  time = Date.UTC(2026, 10, 24);
  nonces = new MemoryUsedNonces({ now: () => time });
});

/** One replica: its own engine, the shared secret (or `secrets`), the test's clock. */
function replica({ secrets = [SECRET], audit }: { secrets?: string[]; audit?: AuditRecord[] } = {}): Engine {
  return new Engine({
    catalog,
    env: { API_KEY_API_KEY: KEY },
    policies: parsePolicies(["write=approve"], []),
    requestStates: new RequestStates({ secrets, lifetimeMs: LIFETIME, usedNonces: nonces, now: () => time }),
    ...(audit ? { audit: { write: (record) => audit.push(record) } } : {}),
  });
}

async function begin(engine: Engine, name = "deletePet", args: unknown = { petId: 7 }): Promise<PendingApproval> {
  const begun = await engine.beginCall({ name, args, principal: "alice" });
  if (!("approval" in begun)) throw new Error(`expected an approval, got ${JSON.stringify(begun.result)}`);
  return begun.approval;
}

const text = (result: ToolResult): string =>
  result.content.map((block) => ("text" in block ? block.text : "")).join("");

describe("one replica asks, another resumes", () => {
  it("sends exactly one request, once approved, with its credentials", async () => {
    const audit: AuditRecord[] = [];
    const approval = await begin(replica());
    expect(upstream.requests).toHaveLength(0);
    expect(approval.request).toMatchObject({ tool: "deletePet", method: "DELETE", arguments: { petId: 7 } });
    expect(approval.request.url).toBe(`${upstream.url}/pets/7`);
    const result = await replica({ audit }).resumeCall({
      name: "deletePet",
      args: { petId: 7 },
      principal: "alice",
      state: approval.state,
      answer: (id) => (id === approval.questionId ? "accept" : "cancel"),
    });
    expect(result.isError).toBeFalsy();
    const sent = upstream.only();
    expect([sent.method, sent.url, sent.headers["x-api-key"]]).toEqual(["DELETE", "/pets/7", KEY]);
    expect(audit.map((r) => r.outcome)).toEqual(["ok"]);
  });

  it("the arguments may come back in another key order", async () => {
    const approval = await begin(replica(), "createPet", PET);
    const reordered = { body: { tags: ["a", "b"], kind: { goodBoy: true, species: "dog" }, name: "Rex" } };
    const result = await replica().resumeCall({
      name: "createPet",
      args: reordered,
      principal: "alice",
      state: approval.state,
      answer: "accept",
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(upstream.only().body.toString())).toEqual(PET.body);
  });

  it("a call needing no approval is sent at once", async () => {
    const begun = await replica().beginCall({ name: "getPet", args: { petId: 3 } });
    expect(begun).toHaveProperty("result");
    expect(upstream.only().method).toBe("GET");
  });
});

describe("nothing is sent", () => {
  const resume = (engine: Engine, approval: PendingApproval, change: Record<string, unknown> = {}) =>
    engine.resumeCall({
      name: "deletePet",
      args: { petId: 7 },
      principal: "alice",
      state: approval.state,
      answer: "accept",
      ...change,
    });

  it.each([
    ["a byte changed in the payload", (s: string) => `${s[0] === "A" ? "B" : "A"}${s.slice(1)}`],
    ["a byte changed in the MAC", (s: string) => `${s.slice(0, -3)}${s.at(-3) === "A" ? "B" : "A"}${s.slice(-2)}`],
  ])("forged: %s", async (_, change) => {
    const approval = await begin(replica());
    const result = await resume(replica(), approval, { state: change(approval.state) });
    expect(text(result)).toMatch(/^deletePet was not sent: the approval state is not one this server signed/);
    expect(upstream.requests).toHaveLength(0);
  });

  it("forged: signed by a replica with another secret", async () => {
    const approval = await begin(replica({ secrets: ["another-secret-entirely-0123456789abc"] }));
    expect(text(await resume(replica(), approval))).toContain("every replica needs the same --state-secret");
    expect(upstream.requests).toHaveLength(0);
  });

  it("expired", async () => {
    const audit: AuditRecord[] = [];
    const approval = await begin(replica());
    time += LIFETIME;
    const result = await resume(replica({ audit }), approval);
    expect(text(result)).toBe(
      "deletePet was not sent: its approval expired (an answer counts for 5 minutes after the question). Nothing was sent; call the tool again to be asked anew.",
    );
    expect(audit.map((r) => r.outcome)).toEqual(["state_refused"]);
    expect(upstream.requests).toHaveLength(0);
  });

  it("replayed: the second use of a state, on either replica, sends nothing more", async () => {
    const first = replica();
    const approval = await begin(first);
    expect((await resume(replica(), approval)).isError).toBeFalsy();
    for (const engine of [replica(), first]) {
      expect(text(await resume(engine, approval))).toMatch(/^deletePet was not sent again: this approval was used/);
    }
    expect(upstream.requests).toHaveLength(1);
  });

  it.each([
    ["another principal", { principal: "mallory" }, "another caller"],
    ["no principal", { principal: undefined }, "another caller"],
    ["another tool", { name: "getPet", args: { petId: 7 } }, "another tool"],
    ["other arguments", { args: { petId: 8 } }, "other arguments"],
  ])("re-bound: %s", async (_, change, said) => {
    const approval = await begin(replica());
    const result = await resume(replica(), approval, change);
    expect(text(result)).toContain(`the approval was given for ${said}`);
    expect(upstream.requests).toHaveLength(0);
    // A refused attempt does not use the state up: the call it was issued for still goes.
    expect((await resume(replica(), approval)).isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
  });

  it("invalid arguments are refused as ever, before the state is used", async () => {
    const approval = await begin(replica());
    expect(text(await resume(replica(), approval, { args: { petId: "seven" } }))).toMatch(/^Invalid arguments/);
    expect(upstream.requests).toHaveLength(0);
  });

  it.each(["decline", "cancel", "timeout"] as const)("the answer is %s; the state is used up", async (answer) => {
    const approval = await begin(replica());
    expect(text(await resume(replica(), approval, { answer }))).toMatch(/^deletePet was not sent: (the person|nobody)/);
    expect(text(await resume(replica(), approval))).toContain("was used already");
    expect(upstream.requests).toHaveLength(0);
  });

  it("the answer is to another question", async () => {
    const approval = await begin(replica());
    const answer = (id: string) => (id === "approve_other" ? "accept" : "cancel");
    expect(text(await resume(replica(), approval, { answer }))).toContain("cancelled the approval");
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("dynamic mode (call_tool)", () => {
  it("binds the tool call_tool calls, and resumes it on another replica", async () => {
    const dynamic = (engine: Engine) => new DynamicProvider({ engine, catalog });
    const call = { name: "call_tool", args: { name: "deletePet", arguments: { petId: 7 } }, principal: "alice" };
    const begun = await dynamic(replica()).beginCall(call);
    if (!("approval" in begun)) throw new Error("expected an approval");
    expect(begun.approval.request.tool).toBe("deletePet");
    const other = { ...call, args: { name: "getPet", arguments: { petId: 7 } } };
    const refused = await dynamic(replica()).resumeCall({ ...other, state: begun.approval.state, answer: "accept" });
    expect(text(refused)).toContain("the approval was given for another tool");
    expect(upstream.requests).toHaveLength(0);
    const result = await dynamic(replica()).resumeCall({ ...call, state: begun.approval.state, answer: "accept" });
    expect(result.isError).toBeFalsy();
    expect(upstream.only().url).toBe("/pets/7");
  });
});
