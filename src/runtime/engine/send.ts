// The send stage: the team's beforeRequest hook, then the request. On a 401 with an OAuth token the token is
// dropped and the credentials stage's work done again (a new token, the request rebuilt) for one more try,
// admitted again by the same gate: the arguments were checked already and have not changed.

import type { EngineHooks } from "../engine-options.js";
import { maskValue } from "../secrets/secrets.js";
import { type Admitted, answered, type Prepared, type Ran, type Sent } from "./call.js";
import { prepareRequest } from "./credentials.js";
import { exchange } from "./exchange.js";
import type { EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

export function sendStage(parts: EngineParts): Stage<Admitted, Sent, Ran> {
  return async (call, next) => {
    const { prepared: first, context, gate, record } = call;
    const secrets = [...first.secrets];
    // Validated by now: an object of the tool's input schema.
    const args = call.args as Record<string, unknown>;
    let last = await withHook({ hooks: parts.options.hooks, prepared: first, args });
    let exchanged = await exchange({ parts, prepared: last, context, gate });
    if (exchanged.status === 401 && last.invalidate) {
      // A cached OAuth token may have been revoked: fetch a new one and try once more (admitted again: the API
      // counts this request too).
      last.invalidate();
      const again = await prepareRequest({ parts, call, context });
      if ("error" in again) {
        record(again.outcome, { ...last, secrets });
        return answered(maskValue(again.error, secrets));
      }
      last = await withHook({ hooks: parts.options.hooks, prepared: again, args });
      secrets.push(...again.secrets);
      exchanged = await exchange({ parts, prepared: last, context, gate });
    }
    return next(Object.assign(call, { last, exchanged, secrets }));
  };
}

async function withHook({
  hooks,
  prepared,
  args,
}: {
  hooks: EngineHooks | undefined;
  prepared: Prepared;
  args: Record<string, unknown>;
}): Promise<Prepared> {
  const changed = await hooks?.beforeRequest?.({ tool: prepared.tool, arguments: args, request: prepared.request });
  return changed ? { ...prepared, request: changed } : prepared;
}
