// What the parity test needs for MCP 2026-07-28 (parity.test.ts): the opening (server/discover, a first
// tools/list), approval through input_required, and the one part of its answers that is random by design, the
// signed request state, made comparable.

import { expect } from "vitest";
import type { StdioPeer } from "../support/stdio-peer.js";

/** The `_meta` of a 2026-07-28 request from a client that can show a form (it may be asked for approval). */
export const CAN_ASK = { "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } };

/** The cache hints every 2026-07-28 listing carries (src/server/cache-hints.ts). */
export const CACHE_HINTS = { resultType: "complete", ttlMs: 3_600_000, cacheScope: "public" };

/** The answers the new era opens with (both answered before the SDK loads), the same from both peers. */
export async function expectSameOpening({ serve, generated }: { serve: StdioPeer; generated: StdioPeer }) {
  for (const method of ["server/discover", "tools/list"]) {
    const [fromServe, fromGenerated] = await Promise.all([serve.request(method), generated.request(method)]);
    expect(fromGenerated, method).toBe(fromServe);
    expect(JSON.parse(fromServe).result, method).toMatchObject(CACHE_HINTS);
  }
}

export interface Pending {
  /** The input_required answer, its request state and question id masked (see maskPending). */
  masked: string;
  requestState: string;
  questionId: string;
}

interface Claims {
  issuedAt: number;
  expiresAt: number;
  nonce: string;
  questionId: string;
}

/**
 * An input_required answer made comparable. Random by design, and nothing else: the state's nonce (16 random
 * bytes), the question id made from it, the times it was issued and expires, and its MAC, which covers them. The
 * state is `base64url(JSON claims).base64url(HMAC)`, signed, not encrypted, so its claims are read and put in its
 * place with those four masked: the tool, the arguments' digest, the principal, the key order and the lifetime
 * (expiresAt - issuedAt) stay to be compared byte for byte. The shape of what is masked is checked here.
 */
export function maskPending(line: string): Pending {
  const result = (JSON.parse(line) as { result?: { resultType?: string; requestState?: unknown } }).result;
  expect(result?.resultType, line).toBe("input_required");
  const requestState = String(result?.requestState);
  const [payload = "", mac = ""] = requestState.split(".");
  expect(mac, "an HMAC-SHA-256, base64url").toMatch(/^[A-Za-z0-9_-]{43}$/);
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Claims;
  expect(claims.nonce, "16 random bytes, base64url").toMatch(/^[A-Za-z0-9_-]{22}$/);
  const { questionId } = claims;
  expect(questionId).toBe(`approve_${claims.nonce.slice(0, 8)}`);
  const masked = {
    ...claims,
    issuedAt: "(issued)",
    expiresAt: `(issued + ${claims.expiresAt - claims.issuedAt} ms)`,
    nonce: "(nonce)",
    questionId: "(question)",
  };
  return {
    masked: line
      .replace(JSON.stringify(requestState), JSON.stringify(masked))
      .replaceAll(JSON.stringify(questionId), '"(question)"'),
    requestState,
    questionId,
  };
}
