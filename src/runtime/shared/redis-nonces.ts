// Used approval and sign-in states, shared by every replica (used-nonces.ts): one atomic `SET key 1 NX PXAT
// expiresAt` per state, so of two replicas resuming the same state at once exactly one gets it, and Redis drops the
// key once the state has expired anyway. The nonce is random and public (it is in the signed state), not a secret.

import type { NonceAdded, UsedNonces } from "../approvals/used-nonces.js";
import type { RedisConnection } from "./redis.js";

export const NONCE_PREFIX = "openapi-mcp:nonce:";

export class RedisUsedNonces implements UsedNonces {
  private readonly redis: RedisConnection;

  constructor({ redis }: { redis: RedisConnection }) {
    this.redis = redis;
  }

  async add(nonce: string, expiresAt: number): Promise<NonceAdded> {
    // At least a millisecond ahead: PXAT in the past would drop the key at once (and the state is expired anyway).
    const at = String(Math.max(Math.ceil(expiresAt), Date.now() + 1));
    try {
      const reply = await this.redis.sendCommand(["SET", NONCE_PREFIX + nonce, "1", "NX", "PXAT", at]);
      return reply === null ? "used" : "added";
    } catch {
      // Not known to be unused: refused, and the state stays good for when Redis is back.
      return "unreachable";
    }
  }
}
