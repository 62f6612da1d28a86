// The Approvals page's API: the calls waiting for a person (settings `approvals: console | both`, and calls from the
// Try it page), each with what an approval question shows (tool, method, URL, masked arguments: the same text as
// the client's question), who asked, when, and when it lapses; and the admin's decision, named on the call's audit
// line as `console:<admin>`. Nothing is sent from here: a yes lets the waiting call go on through the engine.

import { approvalMessage } from "../runtime/approvals/approval-message.js";
import type { ApprovalQueue, QueuedApproval } from "../runtime/approvals/approval-queue.js";
import type { Admin } from "./admins.js";
import type { ConsolePage, PageAnswer, PageRequest } from "./page.js";

const UNREACHABLE =
  "The shared approval queue (Redis, --state) cannot be reached now; calls keep waiting until their timeout.";

export class ApprovalsPage implements ConsolePage {
  readonly name = "approvals";

  constructor(private readonly queue: ApprovalQueue) {}

  async get(): Promise<PageAnswer> {
    let pending: QueuedApproval[];
    try {
      pending = await this.queue.pending();
    } catch {
      return { status: 503, json: { error: UNREACHABLE } };
    }
    return { json: { now: Date.now(), pending: pending.map(shown) } };
  }

  /** POST /console/api/approvals/<id> with `{ "decision": "approve" | "decline" }`. */
  async post({ path, body, admin }: PageRequest): Promise<PageAnswer> {
    const [id] = path;
    const decision = (body as { decision?: unknown } | undefined)?.decision;
    if (!id || (decision !== "approve" && decision !== "decline"))
      return {
        status: 400,
        json: { error: 'Send { "decision": "approve" } or { "decision": "decline" } to approvals/<id>.' },
      };
    let done: "decided" | "gone";
    try {
      done = await this.queue.decide({ id, approve: decision === "approve", by: consoleName(admin) });
    } catch {
      return { status: 503, json: { error: `${UNREACHABLE} Nothing was decided.` } };
    }
    if (done === "gone")
      return {
        status: 409,
        json: { error: "That call is no longer waiting: it was decided, timed out or cancelled." },
      };
    return { json: { ok: true, decision } };
  }
}

/** How the console names an admin on audit lines and to callers: `console:admin`, `console:<OAuth principal>`. */
export function consoleName(admin: Admin): string {
  return `console:${admin.who}`;
}

function shown({ id, request, principal, askedAt, expiresAt }: QueuedApproval) {
  const { tool, title, method, url, effect, arguments: args } = request;
  return {
    id,
    tool,
    title,
    method,
    url,
    effect,
    arguments: args,
    message: approvalMessage(request),
    principal: principal ?? null,
    askedAt,
    expiresAt,
  };
}
