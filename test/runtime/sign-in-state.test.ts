// The sign-in state: sealed (nobody reads the PKCE verifier or changes whom it is for), expiring, accepted once, and
// opened by any process holding the same token keys (rotation included), never by one with other keys.

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SignInStates } from "../../src/runtime/sign-in/oauth-state.js";
import { readTokenKeys } from "../../src/runtime/sign-in/token-keys.js";
import { MemoryUsedNonces } from "../../src/runtime/approvals/used-nonces.js";

const key = () => randomBytes(32).toString("base64");
const [A, B] = [key(), key()];
const CLAIMS = { principal: "alice", scheme: "octo", verifier: "v".repeat(43), nonce: "n1", expiresAt: 2_000 };

function states(value: string, now = () => 1_000) {
  return new SignInStates({
    keys: readTokenKeys({ value, purpose: "x" }),
    usedNonces: new MemoryUsedNonces({ now }),
    now,
  });
}

describe("sign-in state", () => {
  it("opens once, with its claims; the second time it is a replay", async () => {
    const issuer = states(A);
    const state = issuer.seal(CLAIMS);
    expect(state).not.toContain("alice");
    expect(Buffer.from(state, "base64url").toString("latin1")).not.toContain(CLAIMS.verifier);
    expect(await issuer.open(state)).toEqual(CLAIMS);
    expect(await issuer.open(state)).toEqual({ refused: "replayed" });
  });

  it("is refused once expired", async () => {
    const state = states(A).seal(CLAIMS);
    expect(await states(A, () => 2_000).open(state)).toEqual({ refused: "expired" });
  });

  it("is refused changed, or under other keys; opens where the old key is still listed", async () => {
    const state = states(A).seal(CLAIMS);
    const changed = `${state.slice(0, -2)}${state.endsWith("AA") ? "BB" : "AA"}`;
    expect(await states(A).open(changed)).toEqual({ refused: "forged" });
    expect(await states(B).open(state)).toEqual({ refused: "forged" });
    expect(await states(`${B},${A}`).open(state)).toEqual(CLAIMS);
    expect(await states(A).open("x".repeat(5000))).toEqual({ refused: "forged" });
  });
});
