// The console's approval queue shared by the replicas (`--state redis://…`): a call waits on the replica it
// reached, its entry (what the Approvals page shows, secrets already masked: tool, method, URL, masked arguments,
// who asked, when, expiry) is kept in Redis so every replica's console lists it, and a decision made on any replica
// is written once (`SET … NX`, in one script with the entry's removal) under the call's decision key, which the
// waiting replica reads every POLL_MS (a decision reaches the call within that, plus a round trip). The waiting
// replica's own end (timeout, cancellation) claims the same key, so of a decision and an end exactly one counts.
// Fail closed: while Redis is lost a call still waits here and times out as in memory, nothing sent; a decision
// that cannot be written is refused with a clear error, and nothing is decided. Entries and decisions are sealed
// and bound to their keys (approval-records.ts): a value this replica did not seal approves nothing and shows nothing.

import { randomUUID } from "node:crypto";
import type { ApprovalOutcome, ApprovalQueue, QueuedApproval } from "../approvals/approval-queue.js";
import type { ApprovalRequest } from "../types.js";
import { APPROVALS_KEY, ApprovalRecords } from "./approval-records.js";
import type { RedisConnection } from "./redis.js";
import type { Sealer } from "./sealed.js";

/** How often the waiting replica looks for its calls' decisions: the latency a console decision adds. */
export const POLL_MS = 200;
/** A decision outlives its call by this long, so the waiting replica reads it even when its poll runs late. */
const DECISION_KEPT_MS = 60_000;
/** The page lists at most this many waiting calls (those expiring first): the list in Redis is anyone's to grow. */
export const MAX_LISTED = 1_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

// KEYS: entry, decision, queue. ARGV: entry, expiresAt, id. Not after the call's end (its decision key is claimed).
const PUBLISH = `if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2]) redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3]) return 1`;
// KEYS: entry, decision, queue. ARGV: decision, decision's expiry, id. Only for a call still listed, and only once.
const DECIDE = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PXAT', ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1]) redis.call('ZREM', KEYS[3], ARGV[3]) return 1`;
// The waiting replica's end: claims the decision key and unlists the call; returns a decision made first, if any.
const WITHDRAW = `local claimed = redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PXAT', ARGV[2])
redis.call('DEL', KEYS[1]) redis.call('ZREM', KEYS[3], ARGV[3])
if claimed then return false end return redis.call('GET', KEYS[2])`;

interface Waiting {
  entry: QueuedApproval;
  published: boolean;
  settle: (outcome: ApprovalOutcome) => void;
}

export class RedisApprovalQueue implements ApprovalQueue {
  private readonly redis: RedisConnection;
  private readonly records: ApprovalRecords;
  private readonly log: (line: string) => void;
  private readonly waiting = new Map<string, Waiting>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private unreachable = false;

  /** `sealer` seals entries and decisions: every replica needs the same --state-secret. */
  constructor({ redis, sealer, log }: { redis: RedisConnection; sealer: Sealer; log: (line: string) => void }) {
    this.redis = redis;
    this.records = new ApprovalRecords({ sealer, log });
    this.log = log;
  }

  ask({
    request,
    principal,
    signal,
  }: {
    request: ApprovalRequest;
    principal?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<ApprovalOutcome> {
    if (signal?.aborted) return Promise.resolve({ answer: "cancel" });
    const askedAt = Date.now();
    const id = randomUUID();
    const entry: QueuedApproval = {
      id,
      request,
      ...(principal !== undefined ? { principal } : {}),
      askedAt,
      expiresAt: askedAt + request.timeoutMs,
    };
    return new Promise((resolve) => {
      const end = (answer: "timeout" | "cancel") => {
        if (!this.waiting.delete(id)) return;
        done();
        // A decision written before this end wins over a timeout; a cancelled call is gone whatever was decided.
        void this.withdraw(entry).then((decided) => resolve(decided && answer === "timeout" ? decided : { answer }));
      };
      const timer = setTimeout(() => end("timeout"), Math.min(request.timeoutMs, MAX_TIMER_MS));
      const cancelled = () => end("cancel");
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", cancelled);
        if (this.waiting.size === 0) this.stop();
      };
      signal?.addEventListener("abort", cancelled, { once: true });
      const settle = (outcome: ApprovalOutcome) => {
        if (!this.waiting.delete(id)) return;
        done();
        resolve(outcome);
      };
      this.waiting.set(id, { entry, published: false, settle });
      this.timer ??= setInterval(() => void this.poll(), POLL_MS).unref();
      void this.poll();
    });
  }

  async pending(): Promise<QueuedApproval[]> {
    const now = String(Date.now());
    await this.redis.sendCommand(["ZREMRANGEBYSCORE", APPROVALS_KEY, "-inf", now]);
    const listed = (await this.redis.sendCommand([
      "ZRANGEBYSCORE",
      APPROVALS_KEY,
      now,
      "+inf",
      "LIMIT",
      "0",
      String(MAX_LISTED),
    ])) as string[];
    const ids = listed.filter((id) => ApprovalRecords.isId(id));
    if (ids.length < listed.length) this.records.ignore(APPROVALS_KEY);
    if (ids.length === 0) return [];
    const entries = (await this.redis.sendCommand(["MGET", ...ids.map((id) => this.records.entryKey(id))])) as Array<
      string | null
    >;
    return ids
      .flatMap((id, index) => {
        const entry = this.records.openEntry({ id, sealed: entries[index] ?? null });
        return entry ? [entry] : [];
      })
      .sort((a, b) => a.askedAt - b.askedAt);
  }

  async decide({ id, approve, by }: { id: string; approve: boolean; by: string }): Promise<"decided" | "gone"> {
    if (!ApprovalRecords.isId(id)) return "gone";
    // Only a call the page could show (its entry sealed by a replica) is decided; a forged one is not waiting.
    const sealed = await this.redis.sendCommand(["GET", this.records.entryKey(id)]);
    if (!this.records.openEntry({ id, sealed: typeof sealed === "string" ? sealed : null })) return "gone";
    const decision = this.records.sealDecision({ id, decision: { answer: approve ? "accept" : "decline", by } });
    const kept = String(Date.now() + DECISION_KEPT_MS);
    const reply = await this.redis.sendCommand(["EVAL", DECIDE, ...this.records.keys(id), decision, kept, id]);
    return reply === 1 ? "decided" : "gone";
  }

  /** Stops looking for decisions (the server is closing); calls still waiting end at their timeout. */
  close(): void {
    this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Lists this replica's calls not yet listed (queued while Redis was lost), then reads their decisions. */
  private async poll(): Promise<void> {
    if (this.polling || this.waiting.size === 0) return;
    this.polling = true;
    try {
      for (const waiting of this.waiting.values()) if (!waiting.published) await this.publish(waiting);
      const listed = [...this.waiting.values()].filter((waiting) => waiting.published);
      if (listed.length === 0) return;
      const replies = (await this.redis.sendCommand([
        "MGET",
        ...listed.map(({ entry }) => this.records.decisionKey(entry.id)),
      ])) as Array<string | null>;
      listed.forEach((waiting, index) => {
        const decided = this.records.openDecision({ id: waiting.entry.id, sealed: replies[index] ?? null });
        if (decided) waiting.settle(decided);
      });
      this.reachable();
    } catch (error) {
      this.lost(error);
    } finally {
      this.polling = false;
    }
  }

  private async publish(waiting: Waiting): Promise<void> {
    const { entry } = waiting;
    const args = [this.records.sealEntry(entry), String(Math.max(entry.expiresAt, Date.now() + 1)), entry.id];
    await this.redis.sendCommand(["EVAL", PUBLISH, ...this.records.keys(entry.id), ...args]);
    waiting.published = true;
  }

  /** Unlists `entry`; the decision an admin made before this end, if any. Redis lost: none (fail closed). */
  private async withdraw(entry: QueuedApproval): Promise<ApprovalOutcome | undefined> {
    const kept = String(Date.now() + DECISION_KEPT_MS);
    try {
      const { id } = entry;
      const ended = this.records.sealDecision({ id, decision: { answer: "ended" } });
      const reply = await this.redis.sendCommand(["EVAL", WITHDRAW, ...this.records.keys(id), ended, kept, id]);
      return this.records.openDecision({ id, sealed: typeof reply === "string" ? reply : null });
    } catch (error) {
      this.lost(error);
      return undefined;
    }
  }

  private lost(error: unknown): void {
    if (this.unreachable) return;
    this.unreachable = true;
    this.log(
      `approvals: the shared queue in Redis cannot be reached (${error instanceof Error ? error.message : String(error)}): calls waiting here stay unlisted in other replicas' consoles and time out unless approved; nothing is sent unless approved`,
    );
  }

  private reachable(): void {
    if (this.unreachable) this.log("approvals: the shared queue in Redis is reachable again");
    this.unreachable = false;
  }
}
