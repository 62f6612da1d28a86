// The two stages of a resumed call (resumeCall): its state opened and checked before anything else (signature,
// expiry, the same tool and caller), then, once the arguments are checked, bound to them, used up and answered.
// Only a yes goes on to credentials and the request; beginCall and callTool pass through both.

import { argumentDigest } from "../approvals/canonical-json.js";
import type { StateRefusal } from "../approvals/approval-states.js";
import { errorResult } from "../http/response.js";
import { stateRefusalMessage } from "../approvals/approval-state-refusals.js";
import { answered, type Checked, type Opened, type Ran, type Recorded } from "./call.js";
import { NOT_APPROVED } from "./approval.js";
import { approvalTimeoutMs, type EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

export function stateStage(parts: EngineParts): Stage<Recorded, Opened, Ran> {
  return async (call, next) => {
    if (call.kind !== "resume") return next(call);
    const { state, ...rest } = call;
    const states = parts.requestStates();
    const opened = states.open(state);
    if ("refused" in opened) return refuse({ parts, call, refusal: opened.refused });
    const { claims } = opened;
    const early = states.rebound(claims, { tool: call.name, principal: call.principal ?? null, digest: claims.digest });
    if (early) return refuse({ parts, call, refusal: early });
    return next({ ...rest, claims });
  };
}

export function answerStage(parts: EngineParts): Stage<Checked, Checked, Ran> {
  return async (call, next) => {
    if (call.kind !== "resume") return next(call);
    const states = parts.requestStates();
    const { claims, name, args, answer, record } = call;
    const digest = argumentDigest(args);
    const rebound = states.rebound(claims, { tool: name, principal: call.principal ?? null, digest });
    if (rebound) return refuse({ parts, call, refusal: rebound });
    const used = await states.consume(claims);
    if (used) return refuse({ parts, call, refusal: used });
    const given = typeof answer === "function" ? answer(claims.questionId) : answer;
    if (given === "accept") return next(call);
    record("not_approved");
    return answered(errorResult(NOT_APPROVED[given](name)));
  };
}

function refuse({
  parts,
  call,
  refusal,
}: {
  parts: EngineParts;
  call: Recorded | Checked;
  refusal: StateRefusal;
}): Ran {
  call.record("state_refused");
  const lifetimeMs = approvalTimeoutMs(parts.options);
  return answered(errorResult(stateRefusalMessage({ refusal, tool: call.name, lifetimeMs })));
}
