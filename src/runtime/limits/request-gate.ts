// The rate limits as each request of a call meets them (../http/client.ts asks before every request leaves). The call's
// first request was admitted before the gate was made; a retry, a redirect or a resend after a 401 is one more
// request the API counts, so each asks the limits again, and is not sent when they refuse. A place held too long
// (PENDING_MS) lapses and its request is not sent, as the proof in ./rate-limit.ts needs; a place the call ends
// without using is given back.

import { formatDuration } from "../durations.js";
import type { RequestGate } from "../http/client.js";
import { type Limiter, PENDING_MS, type Permit, type RateLimitKey, type Reserved } from "./rate-limit.js";

export class RateLimitGate implements RequestGate {
  private readonly limiter: Limiter;
  private readonly keys: readonly RateLimitKey[];
  private readonly describe: (key: string) => string;
  /** The place of the next request, once admitted. */
  private current: Permit | undefined;

  constructor({
    limiter,
    keys,
    first,
    describe,
  }: {
    limiter: Limiter;
    keys: readonly RateLimitKey[];
    /** The place of the call's first request. */
    first: Permit;
    /** How a limit's key reads in a message. */
    describe: (key: string) => string;
  }) {
    this.limiter = limiter;
    this.keys = keys;
    this.current = first;
    this.describe = describe;
  }

  async open(): Promise<string | undefined> {
    if (!this.current) {
      const reserved = await this.limiter.reserve({ keys: this.keys });
      if (!reserved.ok) return this.refusal(reserved);
      this.current = reserved.permit;
    }
    if (this.current.live()) return undefined;
    this.close();
    return `it was held up more than ${formatDuration(PENDING_MS)} after its rate limit admitted it`;
  }

  sent(): void {
    this.current?.sent();
    this.current = undefined;
  }

  /** The call is over: a place it did not use is given back. */
  close(): void {
    this.current?.release();
    this.current = undefined;
  }

  private refusal(refused: Exclude<Reserved, { ok: true }>): string {
    if ("unavailable" in refused) return refused.unavailable;
    return `${this.describe(refused.key)} is reached; try again in ${formatDuration(refused.retryAfterMs)}`;
  }
}
