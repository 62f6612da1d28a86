// Whose script gets the next worker. Each caller's scripts wait in their own queue and the callers waiting take
// turns, as calls to an upstream do: this is the in-flight gate (in-flight.ts) under a name of its own, so a
// script's api calls, which take their slots at their origins, never wait on a count their own script holds. A
// caller runs at most its in-flight limit of scripts at once and never every worker, so one caller's spinning
// scripts always leave a worker to the others; what waits is bounded in count and bytes, per caller and overall.

import { formatDuration } from "../../durations.js";
import {
  type Admission,
  DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
  DEFAULT_MAX_QUEUED,
  DEFAULT_QUEUE_TIMEOUT_MS,
  InFlightGate,
} from "../../limits/in-flight.js";
import type { ScriptOutcome, ScriptQueueLimits, ScriptTurn } from "./script.js";

export const DEFAULT_SCRIPT_QUEUE: ScriptQueueLimits = Object.freeze({
  // Four callers' full queues (--max-queued, 64); typical scripts are a few hundred bytes to a few KB.
  maxQueued: 256,
  queueBytes: 16 * 1024 * 1024,
  // Ten of the longest scripts execute takes (100,000 characters), or hundreds of typical ones.
  queueBytesPerPrincipal: 1024 * 1024,
});

/** A run that names no caller: one caller with the default limits. */
export const DEFAULT_SCRIPT_TURN: ScriptTurn = Object.freeze({
  principal: "",
  perPrincipal: DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
  queue: DEFAULT_MAX_QUEUED,
  queueTimeoutMs: DEFAULT_QUEUE_TIMEOUT_MS,
  ...DEFAULT_SCRIPT_QUEUE,
});

const SANDBOX = "sandbox";
type Refusal = Exclude<Admission, { slot: unknown }>;

export class ScriptTurns {
  private readonly gate = new InFlightGate();

  constructor(private readonly workers: number) {}

  /** A worker's turn for one script (released when its run ends), or why it was not run. */
  async take({
    turn = DEFAULT_SCRIPT_TURN,
    code,
    wallMs,
    signal,
  }: {
    turn?: ScriptTurn | undefined;
    code: string;
    wallMs: number;
    signal?: AbortSignal | undefined;
  }): Promise<{ release(): void } | { refused: NonNullable<ScriptOutcome["error"]> }> {
    const share = Math.min(turn.perPrincipal, Math.max(1, this.workers - 1));
    const caps = {
      perOrigin: this.workers,
      perPrincipal: share,
      queue: turn.queue,
      queueTimeoutMs: Math.min(turn.queueTimeoutMs, wallMs),
      queueWeight: turn.queueBytesPerPrincipal,
      queueAll: turn.maxQueued,
      queueWeightAll: turn.queueBytes,
    };
    const weight = Buffer.byteLength(code);
    const admission = await this.gate.acquire({
      origin: SANDBOX,
      principal: turn.principal,
      caps,
      weight,
      ...(signal ? { signal } : {}),
    });
    if ("slot" in admission) return admission.slot;
    return { refused: refusal({ admission, share, caps, weight }) };
  }

  /** Scripts of `principal` running now (all callers' without one). */
  running(principal?: string): number {
    return this.gate.inFlight(SANDBOX, principal);
  }
}

function refusal({
  admission,
  share,
  caps,
  weight,
}: {
  admission: Refusal;
  share: number;
  caps: { queue: number; queueTimeoutMs: number; queueWeight: number; queueAll: number; queueWeightAll: number };
  weight: number;
}): NonNullable<ScriptOutcome["error"]> {
  if (admission.refused === "cancelled")
    return { kind: "cancelled", message: "The script was cancelled while it waited for a worker. Nothing was run." };
  const later = "Nothing was run; try again later.";
  const held =
    admission.binding === "principal"
      ? `you have ${share} script${share === 1 ? "" : "s"} running, the most one caller may run at once`
      : "every worker is busy";
  if (admission.refused === "queue_timeout")
    return {
      kind: "busy",
      message: `The script was not run: ${held}, and it waited ${formatDuration(caps.queueTimeoutMs)} (the queue timeout) without a turn. ${later}`,
    };
  const full = {
    queue: `your queue is full (its bound: ${caps.queue} waiting)`,
    queueWeight: `your queue would hold more than its ${caps.queueWeight} bytes with this script (${weight} bytes)`,
    queueAll: `the server's queue is full (its bound: ${caps.queueAll} waiting, all callers together)`,
    queueWeightAll: `the server's queue would hold more than its ${caps.queueWeightAll} bytes with this script (${weight} bytes)`,
  }[admission.bound];
  return { kind: "busy", message: `The script was not run: ${held}, and ${full}. ${later}` };
}
