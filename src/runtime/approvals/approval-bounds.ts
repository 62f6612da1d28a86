// The console's approval queue bounded, whichever kind holds it (memory or Redis): a call waiting for a person holds
// no in-flight slot (it is not sent yet), so without a count of its own one caller could keep any number waiting,
// each with arguments of up to 4 MiB, in this replica's memory and in Redis. Past a bound the call is answered at
// once (`busy`: nothing sent, the caller told to try later); what a queue keeps of a call's arguments is what the
// page shows of them, never more.

import type { ApprovalOutcome, ApprovalQueue, QueuedApproval } from "./approval-queue.js";
import { shownRequest } from "./approval-message.js";
import type { ApprovalRequest } from "../types.js";

export interface ApprovalQueueBounds {
  /** Calls one caller (a principal; every unauthenticated caller is one) may have waiting on this replica. */
  perCaller: number;
  /** Calls waiting on this replica in all. */
  total: number;
}

export const APPROVAL_QUEUE_BOUNDS: ApprovalQueueBounds = { perCaller: 16, total: 1_000 };

const NOBODY = "\u0000anonymous";

export class BoundedApprovalQueue implements ApprovalQueue {
  private readonly byCaller = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly inner: ApprovalQueue,
    private readonly bounds: ApprovalQueueBounds = APPROVAL_QUEUE_BOUNDS,
  ) {}

  async ask({
    request,
    principal,
    signal,
  }: {
    request: ApprovalRequest;
    principal?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<ApprovalOutcome> {
    const caller = principal ?? NOBODY;
    const mine = this.byCaller.get(caller) ?? 0;
    if (mine >= this.bounds.perCaller) return { answer: "busy", busy: `${mine} of this caller's calls` };
    if (this.total >= this.bounds.total) return { answer: "busy", busy: `${this.total} calls in all` };
    this.byCaller.set(caller, mine + 1);
    this.total++;
    try {
      return await this.inner.ask({ request: shownRequest(request), principal, signal });
    } finally {
      this.total--;
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left === 0) this.byCaller.delete(caller);
      else this.byCaller.set(caller, left);
    }
  }

  pending(): Promise<QueuedApproval[]> {
    return this.inner.pending();
  }

  decide(options: { id: string; approve: boolean; by: string }): Promise<"decided" | "gone"> {
    return this.inner.decide(options);
  }
}
