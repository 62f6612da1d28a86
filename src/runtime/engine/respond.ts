// The end of the pipeline: the call's audit line (the request as last sent, its status, every reference its
// credentials came from), the team's afterResult hook, and the result masked with every secret the call's
// requests carried, whatever the result says (URLs in messages, echoed requests, resource URIs).

import { maskValue } from "../secrets/secrets.js";
import { answered, type Ran, type Sent } from "./call.js";
import type { EngineParts } from "./parts.js";

export function respond(parts: EngineParts): (call: Sent) => Promise<Ran> {
  return async ({ prepared: first, last, exchanged, secrets, record, args }) => {
    const references = [...new Set([...(first.references ?? []), ...(last.references ?? [])])];
    record(exchanged.outcome, {
      request: last.request,
      secrets,
      ...(references.length > 0 ? { references } : {}),
      ...(last.spanId ? { spanId: last.spanId } : {}),
      ...(exchanged.status !== undefined ? { status: exchanged.status } : {}),
      ...(exchanged.hidden ? { hidden: exchanged.hidden } : {}),
    });
    const result =
      (await parts.options.hooks?.afterResult?.({
        tool: last.tool,
        arguments: args as Record<string, unknown>,
        result: exchanged.result,
      })) ?? exchanged.result;
    return answered(maskValue(result, secrets));
  };
}
