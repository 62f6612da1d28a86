// The keys that sign request state (approval-states.ts). From the operator's secrets (--state-secret,
// MCP_STATE_SECRET): the first signs, every one verifies, so a new secret can be put first and the old one kept
// until the states it signed have expired. Without any, a random key of this process: a state it signs is
// refused by every other process, so a call asked for here can be resumed only here.

import { createHmac, randomBytes } from "node:crypto";
import { UserError } from "../../catalog/errors.js";

/** Shorter secrets are refused: HMAC-SHA-256 wants at least 256 bits, and a person's password has fewer. */
export const MIN_STATE_SECRET_CHARS = 32;

export interface StateKeys {
  /** The signing key first, then the others that still verify. */
  keys: readonly Buffer[];
  /** True when no secret was given: only this process can verify what it signs. */
  random: boolean;
}

export function stateKeys({
  secrets = [],
  source = "--state-secret",
}: {
  secrets?: readonly string[];
  /** Where the secrets came from, for the refusal (never the values). */
  source?: string;
}): StateKeys {
  const given = checkedSecrets({ secrets, source });
  if (given.length === 0) return { keys: [randomBytes(32)], random: true };
  // Derived, not the secret itself: the same secret used for something else gives a different key here.
  return { keys: given.map((secret) => createHmac("sha256", secret).update(KEY_PURPOSE).digest()), random: false };
}

/** The secrets given (blank ones dropped), each long enough, or a UserError naming `source` (never the values). */
export function checkedSecrets({ secrets, source }: { secrets: readonly string[]; source: string }): string[] {
  const given = secrets.map((secret) => secret.trim()).filter((secret) => secret !== "");
  given.forEach((secret, index) => {
    if (secret.length < MIN_STATE_SECRET_CHARS)
      throw new UserError({
        code: "E_OPTION",
        message: `${source}: ${given.length > 1 ? `secret ${index + 1} of ${given.length}` : "the secret"} has ${secret.length} characters; it must have at least ${MIN_STATE_SECRET_CHARS} (make one with: openssl rand -base64 32)`,
      });
  });
  return given;
}

const KEY_PURPOSE = "openapi-mcp request state v1";

/** The log line for a random key, said once, when the first state is signed with it. */
export const RANDOM_KEY_NOTICE =
  "approval state is signed with a random key of this process (no --state-secret or MCP_STATE_SECRET): a call waiting for approval can be resumed only by this process; give every replica the same secret";
