// Calls waiting for a person in the console (settings `approvals: console | both`): a queue any client's call can
// wait in, whatever the client supports, answered by an admin on the console's Approvals page. The same rule as
// elicitation: only an admin's yes sends the call; a no, the approval timeout, the call's cancellation or its
// question withdrawn (the client answered first) ends it with nothing sent. Two kinds behind one interface: this
// process's memory (`--state memory`), and Redis (shared/redis-approvals.ts), where every replica's console lists
// every replica's waiting calls and a decision made on any replica reaches the one the call waits on.

import { randomUUID } from "node:crypto";
import type { ApprovalAnswer, ApprovalRequest } from "../types.js";

/** One call waiting: what the person is shown (secrets already masked), who asked, and when it lapses. */
export interface QueuedApproval {
  id: string;
  request: ApprovalRequest;
  /** The verified caller's principal; absent without endpoint auth (stdio, an open endpoint). */
  principal?: string;
  /** Epoch milliseconds. */
  askedAt: number;
  expiresAt: number;
}

/** An answer and, for a decision made in the console, who made it (`console:<admin>`). */
export interface ApprovalOutcome {
  answer: ApprovalAnswer;
  by?: string;
  /** With `busy`: the bound reached (`16 of this caller's calls`). */
  busy?: string;
}

/** Where calls wait for the console: the memory's (below) or the replicas' shared one (shared/redis-approvals.ts). */
export interface ApprovalQueue {
  /**
   * Queues `request` until an admin decides, `request.timeoutMs` passes (`timeout`) or `signal` fires (`cancel`).
   * Never rejects.
   */
  ask(options: {
    request: ApprovalRequest;
    principal?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<ApprovalOutcome>;
  /** The calls waiting now, oldest first. Rejects (a clear message) when the shared queue cannot be read. */
  pending(): Promise<QueuedApproval[]>;
  /**
   * An admin's answer, taken once: `gone` when the call is no longer waiting (decided, timed out or cancelled
   * meanwhile). Rejects when the shared queue cannot be reached: then nothing was decided.
   */
  decide(options: { id: string; approve: boolean; by: string }): Promise<"decided" | "gone">;
}

interface Waiting extends QueuedApproval {
  settle: (outcome: ApprovalOutcome) => void;
}

// setTimeout fires at once for delays beyond a signed 32-bit count of milliseconds (about 24.8 days).
const MAX_TIMER_MS = 2 ** 31 - 1;

export class MemoryApprovalQueue implements ApprovalQueue {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly options: { now?: () => number } = {}) {}

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
    const askedAt = this.now();
    return new Promise((resolve) => {
      const id = randomUUID();
      const timer = setTimeout(() => settle({ answer: "timeout" }), Math.min(request.timeoutMs, MAX_TIMER_MS));
      const cancelled = () => settle({ answer: "cancel" });
      const settle = (outcome: ApprovalOutcome) => {
        if (!this.waiting.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener("abort", cancelled);
        resolve(outcome);
      };
      signal?.addEventListener("abort", cancelled, { once: true });
      this.waiting.set(id, {
        id,
        request,
        ...(principal !== undefined ? { principal } : {}),
        askedAt,
        expiresAt: askedAt + request.timeoutMs,
        settle,
      });
    });
  }

  /** The calls waiting now, oldest first. */
  async pending(): Promise<QueuedApproval[]> {
    return [...this.waiting.values()].map(({ settle: _settle, ...queued }) => queued);
  }

  /** An admin's answer: `gone` when the call is no longer waiting (decided, timed out or cancelled meanwhile). */
  async decide({ id, approve, by }: { id: string; approve: boolean; by: string }): Promise<"decided" | "gone"> {
    const waiting = this.waiting.get(id);
    if (!waiting) return "gone";
    waiting.settle({ answer: approve ? "accept" : "decline", by });
    return "decided";
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
