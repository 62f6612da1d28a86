// What one call carries through the engine's pipeline (pipeline.ts): what the entry was given, then what each
// stage adds, in order. Each type is the one before it with what one stage found out.

import type { Tool } from "../../catalog/types.js";
import type { AuditOutcome } from "../audit/audit-record.js";
import type { Resolved } from "../approvals/policy.js";
import type { RateLimitGate } from "../limits/request-gate.js";
import type { StateClaims } from "../approvals/approval-states.js";
import type { CallContext, PendingApproval, PreparedRequest, ResumeCall, ToolResult } from "../types.js";

interface EntryBase {
  name: string;
  args: unknown;
  context: CallContext;
}
/** callTool: a call needing approval asks now and waits for the answer. */
export interface CallEntry extends EntryBase {
  kind: "call";
}
/** beginCall: a call needing approval ends with the question and a signed state instead. */
export interface BeginEntry extends EntryBase {
  kind: "begin";
  principal: string | undefined;
}
/** resumeCall: the state beginCall gave, brought back with the person's answer. */
export interface ResumeEntry extends EntryBase {
  kind: "resume";
  principal: string | undefined;
  state: unknown;
  answer: ResumeCall["answer"];
}
/** The one entry the three call paths share. */
export type Entry = CallEntry | BeginEntry | ResumeEntry;

/** What a call ends with: its result, or (beginCall only) what to ask and the state to bring back. */
export type Ran = { kind: "result"; result: ToolResult } | { kind: "approval"; approval: PendingApproval };

/** A resumed call whose state was opened and checked: its claims instead of the state. */
export type OpenedResume = Omit<ResumeEntry, "state"> & { claims: StateClaims };

/** Past the audit stage: one audit line per call, timed from the entry. */
export type Recorded = Entry & { record: Recorder };
/** Past the state stage. */
export type Opened = (CallEntry | BeginEntry | OpenedResume) & { record: Recorder };
/** Past the policy stage: the tool by its name, if there is one, and its policy, resolved once for the call. */
export type Found = Opened & { found: { tool: Tool; policy: Resolved } | undefined };
/** Past the check stage: the tool, and its arguments bounded and validated. */
export type Checked = Opened & { tool: Tool; policy: Resolved; given: unknown };
/** Past the credentials stage: the request as it will be sent. */
export type Built = Checked & { prepared: Prepared };
/** Past the limits: a slot in flight and a place under the rate limits, kept until the call ends. */
export type Admitted = Built & { gate: RateLimitGate };
/** Past the send stage: the request last sent, what came back, and every secret the call's requests carried. */
export type Sent = Admitted & { last: Prepared; exchanged: Exchanged; secrets: string[] };

/** The request a call would send, credentials included, with the secret values it carries. */
export interface Prepared {
  tool: Tool;
  request: PreparedRequest;
  secrets: string[];
  invalidate?: () => void;
  placeholders?: string[];
  /** The `${file:…}`/`${cmd:…}` references its credentials and headers came from (audit line). */
  references?: string[];
  /** The parent-id our `traceparent` header gives this request, when it carries one (trace.ts). */
  spanId?: string;
}

/** Why a call stops before anything is sent, and the error result that says so. */
export interface Stopped {
  error: ToolResult;
  outcome: AuditOutcome;
}

/** One request and its answer (exchange.ts). */
export interface Exchanged {
  result: ToolResult;
  outcome: AuditOutcome;
  status?: number;
  hidden?: number;
}

export const answered = (result: ToolResult): Ran => ({ kind: "result", result });

export type Recorder = (outcome: AuditOutcome, extra?: RecordExtra) => void;

/** What a call's audit line shows beyond the call itself, as far as the call got. */
export interface RecordExtra {
  request?: PreparedRequest;
  status?: number;
  secrets?: string[];
  references?: string[];
  spanId?: string;
  hidden?: number;
  /** Who decided in the console (`console:<admin>`). */
  approvedBy?: string;
  declinedBy?: string;
}
