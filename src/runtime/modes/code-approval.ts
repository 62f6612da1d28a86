// Approval inside a script for clients that answer later (MCP 2026-07-28's input_required): the run cannot wait
// across requests, so it stops at the call needing approval and the engine's signed state for that call is handed
// out, as dynamic mode's call_tool does. The answer comes with the script again, which runs anew: the calls it made
// before the question are answered from what they returned the first time (kept here, in this process, for the
// approval's lifetime) instead of being sent twice; the approved call is resumed by the engine, which checks it is
// the same tool, arguments and caller. Elsewhere (another replica, or later) a script whose earlier calls are not
// kept here is refused rather than run again blind, unless it had made none.

import { argumentDigest } from "../approvals/canonical-json.js";
import type { ApiAnswer } from "./sandbox/script.js";

/** A call a stopped run made, by its place in the run's order of calls, with the secrets its request carried. */
export type KeptCall = { tool: string; digest: string; answer: ApiAnswer; carried: readonly string[] };

/** A run stopped for approval: its calls' answers by their place (calls still in flight add theirs when they end). */
export interface StoppedRun {
  principal: string | null;
  /** The script's digest: the same script must come back. */
  script: string;
  calls: Array<KeptCall | undefined>;
  /** The place of the call waiting for approval. */
  waiting: number;
  /** Calls the run had begun, the one waiting included. */
  begun: number;
  expires: number;
}

/** Runs kept at most: each holds its calls' answers, so a flood of unanswered questions cannot grow memory. */
const MAX_KEPT = 200;
/**
 * Runs kept of one caller: past it, that caller's oldest goes, never another's (one caller's flood of questions
 * would otherwise push every other caller's stopped run out, and their approvals could not resume).
 */
const MAX_KEPT_PER_PRINCIPAL = 16;
const STATE_PREFIX = "code.";

export class StoppedRuns {
  private readonly runs = new Map<string, StoppedRun>();

  constructor(private readonly lifetimeMs: number) {}

  /**
   * The state the client carries: how many other calls the run had begun (none: it can be resumed anywhere), then
   * the engine's. `run.calls` is kept by reference, so calls still in flight add their answers when they end.
   */
  keep({ state, run }: { state: string; run: Omit<StoppedRun, "expires"> }): string {
    const now = Date.now();
    let mine = 0;
    for (const [key, kept] of this.runs) {
      if (kept.expires <= now) this.runs.delete(key);
      else if (kept.principal === run.principal) mine++;
    }
    // Oldest first (a Map keeps the order of insertion): the caller's own, then anyone's past the overall bound.
    for (const [key, kept] of this.runs) {
      if (mine < MAX_KEPT_PER_PRINCIPAL) break;
      if (kept.principal !== run.principal) continue;
      this.runs.delete(key);
      mine--;
    }
    for (const key of this.runs.keys()) {
      if (this.runs.size < MAX_KEPT) break;
      this.runs.delete(key);
    }
    this.runs.set(state, { ...run, expires: now + this.lifetimeMs });
    return `${STATE_PREFIX}${run.begun - 1}.${state}`;
  }

  /** The engine's state and the calls to answer again; used once. A message when the run cannot be resumed here. */
  take({
    state,
    principal,
    script,
  }: {
    state: unknown;
    principal: string | null;
    script: string;
  }): { engineState: unknown; calls: StoppedRun["calls"]; waiting: number } | { refused: string } {
    const parsed = typeof state === "string" ? /^code\.(\d+)\.(.+)$/s.exec(state) : null;
    // Not ours: the engine refuses it in its own words.
    if (!parsed) return { engineState: state, calls: [], waiting: 0 };
    const engineState = parsed[2]!;
    const kept = this.runs.get(engineState);
    this.runs.delete(engineState);
    if (kept && kept.expires > Date.now() && kept.principal === principal && kept.script === script)
      return { engineState, calls: kept.calls, waiting: kept.waiting };
    if (Number(parsed[1]) === 0) return { engineState, calls: [], waiting: 0 };
    return {
      refused:
        "This script's earlier calls are not held by this server any more (another replica asked, or the approval expired), and sending them again could repeat what they did. Nothing more was sent; run the script again.",
    };
  }
}

/** One call as a resumed run must make it again: the same tool with the same arguments. */
export function callKey({ tool, args }: { tool: string; args: unknown }): { tool: string; digest: string } {
  return { tool, digest: argumentDigest(args) };
}
