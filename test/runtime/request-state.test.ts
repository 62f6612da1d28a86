// The signed request state an approval travels in (runtime/approvals/approval-states.ts): what one engine issues,
// another with the same secret opens; a byte changed anywhere, a state past its lifetime, one used before or brought
// back for another call is refused, each for its own reason; secrets rotate (the first signs, all verify).

import { describe, expect, it } from "vitest";
import { UserError } from "../../src/catalog/errors.js";
import { argumentDigest, canonicalJson } from "../../src/runtime/approvals/canonical-json.js";
import { RANDOM_KEY_NOTICE } from "../../src/runtime/approvals/approval-state-keys.js";
import { RequestStates, type StateClaims } from "../../src/runtime/approvals/approval-states.js";
import { MemoryUsedNonces } from "../../src/runtime/approvals/used-nonces.js";

const SECRET = "s3cret-for-tests-0123456789abcdefghij";
const OLD_SECRET = "an-older-secret-0123456789abcdefghijk";
const LIFETIME = 5 * 60_000;
const CALL = { tool: "deletePet", digest: argumentDigest({ petId: 7 }), principal: "alice" };

/** A clock the test moves. */
function fakeClock(start = Date.UTC(2026, 10, 24)): { now: () => number; advance(ms: number): void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function states(options: Partial<ConstructorParameters<typeof RequestStates>[0]> = {}): RequestStates {
  return new RequestStates({ secrets: [SECRET], lifetimeMs: LIFETIME, ...options });
}

/** The state with one character at `index` replaced by another base64url character. */
function flipped(state: string, index: number): string {
  const at = index < 0 ? state.length + index : index;
  const char = state[at]!;
  return state.slice(0, at) + (char === "A" ? "B" : "A") + state.slice(at + 1);
}

describe("a state", () => {
  it("round trip: issued by one, opened by another with the same secret, with what resuming needs", () => {
    const clock = fakeClock();
    const { state, claims } = states({ now: clock.now }).issue(CALL);
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const opened = states({ now: clock.now }).open(state);
    expect(opened).toEqual({ claims });
    const { claims: read } = opened as { claims: StateClaims };
    expect(read).toMatchObject({ ...CALL, issuedAt: clock.now(), expiresAt: clock.now() + LIFETIME });
    expect(read.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(read.questionId).toMatch(/^approve_/);
    // Signed, not encrypted: the client may read it, and it holds a digest, never the arguments.
    expect(Buffer.from(state.split(".")[0]!, "base64url").toString()).not.toContain("petId");
  });

  it("each state is new: another nonce and question id every time", () => {
    const issuer = states();
    const [a, b] = [issuer.issue(CALL), issuer.issue(CALL)];
    expect(a.claims.nonce).not.toBe(b.claims.nonce);
    expect(a.claims.questionId).not.toBe(b.claims.questionId);
  });
});

describe("refused as forged", () => {
  const { state } = states().issue(CALL);
  const payloadLength = state.indexOf(".");
  const cases: Array<[string, unknown]> = [
    ["a byte changed at the payload's start", flipped(state, 0)],
    ["a byte changed in the payload's middle", flipped(state, Math.floor(payloadLength / 2))],
    ["a byte changed in the MAC", flipped(state, payloadLength + 5)],
    ["the MAC's last character changed (only one spelling counts)", flipped(state, -1)],
    ["the MAC cut short", state.slice(0, -2)],
    ["no MAC", state.slice(0, payloadLength)],
    [
      "another payload with this MAC",
      `${Buffer.from('{"tool":"x"}').toString("base64url")}${state.slice(payloadLength)}`,
    ],
    ["not base64url", state.replace(".", "+")],
    ["empty", ""],
    ["not a string", { state }],
    ["too long", `${"A".repeat(20_000)}${state.slice(payloadLength)}`],
  ];
  it.each(cases)("%s", (_, forged) => {
    expect(states().open(forged)).toEqual({ refused: { kind: "forged" } });
  });

  it("signed with another secret, or by a process with a random key", () => {
    expect(states({ secrets: [OLD_SECRET] }).open(state)).toEqual({ refused: { kind: "forged" } });
    const random = new RequestStates({ lifetimeMs: LIFETIME, log: () => {} });
    expect(new RequestStates({ lifetimeMs: LIFETIME }).open(random.issue(CALL).state)).toEqual({
      refused: { kind: "forged" },
    });
    // The process that made the key opens its own.
    expect(random.open(random.issue(CALL).state)).toHaveProperty("claims");
  });
});

describe("refused as expired", () => {
  it("at its lifetime, not before", () => {
    const clock = fakeClock();
    const issuer = states({ now: clock.now });
    const { state } = issuer.issue(CALL);
    clock.advance(LIFETIME - 1);
    expect(issuer.open(state)).toHaveProperty("claims");
    clock.advance(1);
    expect(issuer.open(state)).toEqual({ refused: { kind: "expired" } });
  });
});

describe("refused as replayed", () => {
  it("used once, then refused; another state is not affected", async () => {
    const issuer = states();
    const first = issuer.issue(CALL).claims;
    expect(await issuer.consume(first)).toBeUndefined();
    expect(await issuer.consume(first)).toEqual({ kind: "replayed" });
    expect(await issuer.consume(issuer.issue(CALL).claims)).toBeUndefined();
  });

  it("the in-memory store is bounded: full of live entries it refuses, and makes room as they expire", async () => {
    const clock = fakeClock();
    const nonces = new MemoryUsedNonces({ max: 2, now: clock.now });
    expect(await nonces.add("a", clock.now() + 10)).toBe("added");
    expect(await nonces.add("b", clock.now() + 20)).toBe("added");
    expect(await nonces.add("c", clock.now() + 20)).toBe("full");
    clock.advance(10);
    expect(await nonces.add("c", clock.now() + 20)).toBe("added");
    expect(await nonces.add("b", clock.now() + 20)).toBe("used");
    expect(nonces.size).toBe(2);
  });
});

describe("refused as re-bound", () => {
  const issuer = states();
  const { claims } = issuer.issue(CALL);
  it.each([
    ["another principal", { ...CALL, principal: "mallory" }, "principal"],
    ["no principal", { ...CALL, principal: null }, "principal"],
    ["another tool", { ...CALL, tool: "getPet" }, "tool"],
    ["other arguments", { ...CALL, digest: argumentDigest({ petId: 8 }) }, "arguments"],
  ] as const)("%s", (_, call, what) => {
    expect(issuer.rebound(claims, call)).toEqual({ kind: "rebound", what });
  });

  it("the same arguments in another key order are the same call", () => {
    const args = { body: { name: "Rex", kind: { species: "dog", goodBoy: true }, tags: ["a", "b"] } };
    const reordered = { body: { tags: ["a", "b"], kind: { goodBoy: true, species: "dog" }, name: "Rex" } };
    expect(argumentDigest(reordered)).toBe(argumentDigest(args));
    expect(canonicalJson(reordered)).toBe(
      '{"body":{"kind":{"goodBoy":true,"species":"dog"},"name":"Rex","tags":["a","b"]}}',
    );
    const bound = issuer.issue({ ...CALL, digest: argumentDigest(args) }).claims;
    expect(issuer.rebound(bound, { ...CALL, digest: argumentDigest(reordered) })).toBeUndefined();
    // Array order is not key order: another list is another call.
    expect(argumentDigest({ body: { ...args.body, tags: ["b", "a"] } })).not.toBe(argumentDigest(args));
  });
});

describe("keys", () => {
  it("rotate: the first secret signs, every one verifies", () => {
    const old = states({ secrets: [OLD_SECRET] }).issue(CALL).state;
    const rotated = states({ secrets: [SECRET, OLD_SECRET] });
    expect(rotated.open(old)).toHaveProperty("claims");
    const fresh = rotated.issue(CALL).state;
    expect(states({ secrets: [SECRET] }).open(fresh)).toHaveProperty("claims");
    expect(states({ secrets: [OLD_SECRET] }).open(fresh)).toEqual({ refused: { kind: "forged" } });
  });

  it("a short secret is refused, by where it came from, without showing it", () => {
    const make = () => new RequestStates({ secrets: [SECRET, "short-one"], lifetimeMs: LIFETIME, source: "MCP_X" });
    expect(make).toThrow(UserError);
    expect(make).toThrow(
      "MCP_X: secret 2 of 2 has 9 characters; it must have at least 32 (make one with: openssl rand -base64 32)",
    );
  });

  it("without a secret, a random key, and one log line saying only this process can resume", () => {
    const lines: string[] = [];
    const issuer = new RequestStates({ lifetimeMs: LIFETIME, log: (line) => lines.push(line) });
    expect(lines).toEqual([]);
    issuer.issue(CALL);
    issuer.issue(CALL);
    expect(lines).toEqual([RANDOM_KEY_NOTICE]);
    expect(RANDOM_KEY_NOTICE).toContain("can be resumed only by this process");
    states({ log: (line) => lines.push(line) }).issue(CALL);
    expect(lines).toHaveLength(1);
  });
});
