// Which approval states have been used: a state resumes one call, once. Behind an interface so replicas can share
// one store (a Redis `SET key 1 NX PXAT expiresAt` is `add`); the default holds them in this process's memory.

/**
 * "added": first use; "used": seen before (a replay); "full": the store cannot take more now; "unreachable": the
 * shared store (Redis) cannot be asked now. Anything but "added" is refused (fail closed); only "used" is final.
 */
export type NonceAdded = "added" | "used" | "full" | "unreachable";

export interface UsedNonces {
  /**
   * Records `nonce` as used until `expiresAt` (ms since the epoch), if it is not already: atomic, so of two replicas
   * adding the same nonce at once exactly one gets "added". After `expiresAt` the state is refused as expired anyway,
   * so the entry may go.
   */
  add(nonce: string, expiresAt: number): Promise<NonceAdded>;
}

export const DEFAULT_MAX_USED_NONCES = 100_000;

/**
 * In memory, bounded: at most `max` entries (about 10 MB at the default), each dropped once its state has expired.
 * Full of live entries, it refuses rather than forgetting one, which would let that state be used again.
 */
export class MemoryUsedNonces implements UsedNonces {
  private readonly entries = new Map<string, number>();
  private readonly max: number;
  private readonly now: () => number;

  constructor({ max = DEFAULT_MAX_USED_NONCES, now = Date.now }: { max?: number; now?: () => number } = {}) {
    this.max = max;
    this.now = now;
  }

  async add(nonce: string, expiresAt: number): Promise<NonceAdded> {
    const now = this.now();
    const known = this.entries.get(nonce);
    if (known !== undefined && known > now) return "used";
    this.entries.delete(nonce);
    if (this.entries.size >= this.max) this.dropExpired(now);
    if (this.entries.size >= this.max) return "full";
    this.entries.set(nonce, expiresAt);
    return "added";
  }

  /** Entries held now (for tests and the curious). */
  get size(): number {
    return this.entries.size;
  }

  private dropExpired(now: number): void {
    for (const [nonce, expiresAt] of this.entries) if (expiresAt <= now) this.entries.delete(nonce);
  }
}
