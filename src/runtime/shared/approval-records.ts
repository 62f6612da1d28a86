// What the shared approval queue (redis-approvals.ts) keeps in Redis, sealed: each waiting call's entry (what the
// Approvals page shows) and each decision, AES-256-GCM under a key derived from --state-secret for this use alone
// (sealed.ts), bound to the Redis key it is written under. So whoever can write to Redis can neither approve a call
// (a decision it writes does not open; one copied from another call's key does not either) nor change what the page
// shows (an entry rewritten, or moved to another id, is not listed), and reads no principal or argument there. What
// does not open is ignored (never approves, never shows) and logged, bounded (ignored-values.ts).

import type { ApprovalOutcome, QueuedApproval } from "../approvals/approval-queue.js";
import { IgnoredValues } from "./ignored-values.js";
import type { Sealer } from "./sealed.js";

export const APPROVALS_KEY = "openapi-mcp:approvals";
const ENTRY_PREFIX = "openapi-mcp:approval:";
const DECISION_PREFIX = "openapi-mcp:approval-decision:";
/** Ids are ours (randomUUID): anything else in the list, or asked for by an admin, names no call. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A decision as kept: an admin's answer, or the waiting replica's own end (timeout, cancellation) claiming the key. */
export type Decision = ApprovalOutcome | { answer: "ended" };

export class ApprovalRecords {
  private readonly sealer: Sealer;
  private readonly ignored: IgnoredValues;

  constructor({ sealer, log }: { sealer: Sealer; log: (line: string) => void }) {
    this.sealer = sealer;
    this.ignored = new IgnoredValues({ log, what: "approvals" });
  }

  /** Something under `name` was ignored (an id in the list this queue could not have made, say). */
  ignore(name: string): void {
    this.ignored.ignored(name);
  }

  /** True for an id this queue could have made. */
  static isId(id: string): boolean {
    return ID.test(id);
  }

  /** Entry, decision and list keys of call `id`, as the scripts take them (`3` keys). */
  keys(id: string): string[] {
    return ["3", ENTRY_PREFIX + id, DECISION_PREFIX + id, APPROVALS_KEY];
  }

  entryKey(id: string): string {
    return ENTRY_PREFIX + id;
  }

  decisionKey(id: string): string {
    return DECISION_PREFIX + id;
  }

  sealEntry(entry: QueuedApproval): string {
    return this.sealer.seal({ name: this.entryKey(entry.id), text: JSON.stringify(entry) });
  }

  /** The entry of call `id` as its replica sealed it, or undefined (none, or one not ours: ignored and logged). */
  openEntry({ id, sealed }: { id: string; sealed: string | null }): QueuedApproval | undefined {
    if (sealed === null) return undefined;
    const name = this.entryKey(id);
    const entry = parsed(this.sealer.open({ name, sealed })) as QueuedApproval | undefined;
    if (entry?.id === id && typeof entry.request === "object" && typeof entry.askedAt === "number") return entry;
    this.ignored.ignored(name);
    return undefined;
  }

  sealDecision({ id, decision }: { id: string; decision: Decision }): string {
    return this.sealer.seal({ name: this.decisionKey(id), text: JSON.stringify(decision) });
  }

  /**
   * The decision on call `id`, or undefined: none yet, the call's own end, or a value not sealed for this key
   * (ignored and logged: it approves nothing). Only an exact `accept` sends the call; anything else is a no.
   */
  openDecision({ id, sealed }: { id: string; sealed: string | null }): ApprovalOutcome | undefined {
    if (sealed === null) return undefined;
    const name = this.decisionKey(id);
    const decision = parsed(this.sealer.open({ name, sealed })) as { answer?: unknown; by?: unknown } | undefined;
    if (typeof decision?.answer !== "string") {
      this.ignored.ignored(name);
      return undefined;
    }
    if (decision.answer === "ended") return undefined;
    const by = typeof decision.by === "string" ? { by: decision.by } : {};
    return { answer: decision.answer === "accept" ? "accept" : "decline", ...by };
  }
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
