// What a client is told when the state it brought back does not resume its call: nothing was sent, why, and what
// to do (as a rule, call the tool again and be asked anew).

import { formatDuration } from "../durations.js";
import type { StateRefusal } from "./approval-states.js";

const AGAIN = "Nothing was sent; call the tool again to be asked anew.";

export function stateRefusalMessage({
  refusal,
  tool,
  lifetimeMs,
}: {
  refusal: StateRefusal;
  tool: string;
  lifetimeMs: number;
}): string {
  switch (refusal.kind) {
    case "forged":
      return `${tool} was not sent: the approval state is not one this server signed (it was changed, is malformed, or was signed with another key: every replica needs the same --state-secret). ${AGAIN}`;
    case "expired":
      return `${tool} was not sent: its approval expired (an answer counts for ${formatDuration(lifetimeMs, { words: true })} after the question). ${AGAIN}`;
    case "replayed":
      return `${tool} was not sent again: this approval was used already, and one approval sends one call. ${AGAIN}`;
    case "rebound":
      return `${tool} was not sent: the approval was given for ${REBOUND[refusal.what]}, and it sends only the call the person saw. ${AGAIN}`;
    case "unavailable":
      return `${tool} was not sent: this server is holding too many answered approvals right now. Try again in a minute.`;
    case "unreachable":
      return `${tool} was not sent: the shared state (Redis) that records used approvals is unreachable, so this approval cannot be checked against a replay. Try again in a minute.`;
  }
}

const REBOUND: Record<Extract<StateRefusal, { kind: "rebound" }>["what"], string> = {
  tool: "another tool",
  principal: "another caller",
  arguments: "other arguments",
};
