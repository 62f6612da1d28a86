// The policy stage: the tool by its name and its policy decision, read once for the whole call (the approval stage
// reads the same decision; parts.ts resolves each tool's once per engine). A denied tool is refused before anything else looks at the call, its arguments
// included: this is the operator's decision, not something other arguments can change.

import { errorResult } from "../http/response.js";
import { answered, type Found, type Opened, type Ran } from "./call.js";
import type { EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

export function policyStage(parts: EngineParts): Stage<Opened, Found, Ran> {
  return async (call, next) => {
    const tool = parts.tools.get(call.name);
    // An unknown tool is the check stage's to refuse.
    if (!tool) return next(Object.assign(call, { found: undefined }));
    const policy = parts.policyOf(tool);
    if (policy.decision !== "deny") return next(Object.assign(call, { found: { tool, policy } }));
    call.record("denied");
    return answered(
      errorResult(
        `${call.name} is not allowed on this server (policy ${policy.rule}). Nothing was sent; this is the operator's decision, not something other arguments can change.`,
      ),
    );
  };
}
