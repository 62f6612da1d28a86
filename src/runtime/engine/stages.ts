// The engine's call, stage by stage, in the order that decides which refusal wins when several apply:
//   audit        one audit line per call, timed from here (record.ts)
//   state        resumeCall: the state opened, signature, expiry, tool and caller checked (state.ts)
//   policy       the tool and its policy, resolved once; a denied tool refused (policy.ts)
//   check        unknown tool, unassigned secrets, missing credentials, argument bounds and schema (check.ts)
//   answer       resumeCall: the state bound to these arguments, used up, and the person's answer (state.ts)
//   credentials  the request built, static headers expanded, credentials added, trace carried (credentials.ts)
//   approval     asked where the policy and route say, or handed out for later by beginCall (approval.ts)
//   in-flight    a slot among the calls in flight to the origin (in-flight.ts)
//   rate limits  a place under the rate limits and the profile's budgets (rate-limits.ts)
//   send         the hook, the request, one retry with new credentials on a 401 (send.ts, exchange.ts)
//   respond      the audit line, the afterResult hook, the result masked (respond.ts)

import { approvalStage } from "./approval.js";
import type { BeginEntry, CallEntry, Entry, Ran, ResumeEntry } from "./call.js";
import { checkStage } from "./check.js";
import { credentialsStage } from "./credentials.js";
import { inFlightStage } from "./in-flight.js";
import type { EngineParts } from "./parts.js";
import { Chain } from "./pipeline.js";
import { policyStage } from "./policy.js";
import { rateLimitStage } from "./rate-limits.js";
import { auditStage } from "./record.js";
import { respond } from "./respond.js";
import { sendStage } from "./send.js";
import { answerStage, stateStage } from "./state.js";

/** The one entry of callTool, beginCall and resumeCall; only beginCall's may end with a question (approval.ts). */
export interface Pipeline {
  (entry: BeginEntry): Promise<Ran>;
  (entry: CallEntry | ResumeEntry): Promise<Extract<Ran, { kind: "result" }>>;
}

export function callPipeline(parts: EngineParts): Pipeline {
  const run = Chain.of<Entry, Ran>()
    .add(auditStage(parts.options))
    .add(stateStage(parts))
    .add(policyStage(parts))
    .add(checkStage(parts))
    .add(answerStage(parts))
    .add(credentialsStage(parts))
    .add(approvalStage(parts))
    .add(inFlightStage(parts))
    .add(rateLimitStage(parts))
    .add(sendStage(parts))
    .end(respond(parts));
  return run as Pipeline;
}
