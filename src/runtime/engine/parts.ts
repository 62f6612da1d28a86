// What the pipeline's stages share of an engine: its options, its tools by name, and the parts a profile's view
// shares with the engine it came from (validation, rate limits, in-flight gates, token caches, approval states).

import type { Tool } from "../../catalog/types.js";
import type { EngineOptions } from "../engine-options.js";
import type { InFlightGate } from "../limits/in-flight.js";
import type { TokenSource } from "../credentials/oauth.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../options.js";
import { type Policies, type Resolved, resolve } from "../approvals/policy.js";
import type { Limiter } from "../limits/rate-limit.js";
import type { RequestStates } from "../approvals/approval-states.js";
import type { OutputValidation } from "../types.js";
import type { Validator } from "../checks/validate.js";

export interface EngineParts {
  options: EngineOptions;
  tools: ReadonlyMap<string, Tool>;
  validator: Validator;
  outputValidation: OutputValidation;
  policies: Policies;
  /** A tool's policy decision, resolved once per engine (its policies never change) and shared by every call. */
  policyOf: (tool: Tool) => Resolved;
  limiter: Limiter;
  gate: InFlightGate;
  tokens: TokenSource;
  /** Made on first use: an engine that never begins a call needs no key. */
  requestStates: () => RequestStates;
}

export function approvalTimeoutMs(options: Pick<EngineOptions, "approvalTimeoutMs">): number {
  return options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
}

/** Each tool's policy, resolved on first use and kept: as many entries as the catalog has tools. */
export function policyResolver(policies: Policies): (tool: Tool) => Resolved {
  const resolved = new Map<string, Resolved>();
  return (tool) => {
    let policy = resolved.get(tool.name);
    if (!policy) {
      policy = resolve(tool, policies);
      resolved.set(tool.name, policy);
    }
    return policy;
  };
}
