// The first of the limits: a slot among the calls in flight to the origin (in-flight.ts), taken after approval (a
// call waiting for a person holds none) and kept until the call ends, its retry included.

import { inFlightCaps, refusalMessage } from "../limits/in-flight-caps.js";
import type { Admission } from "../limits/in-flight.js";
import { errorResult } from "../http/response.js";
import { maskValue } from "../secrets/secrets.js";
import { answered, type Built, type Ran } from "./call.js";
import type { EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

/** The principal of calls without a verified caller (stdio, an open endpoint): one, whoever they are. */
const ANONYMOUS = "\u0000anonymous";

export function inFlightStage(parts: EngineParts): Stage<Built, Built, Ran> {
  return async (call, next) => {
    const { prepared, context, name, record } = call;
    const caps = inFlightCaps({ engine: parts.options, tool: prepared.tool, caller: context.caller });
    const { origin } = prepared.request;
    const principal = context.caller?.principal ?? ANONYMOUS;
    const waited: Admission = await parts.gate.acquire({
      origin,
      principal,
      caps,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (!("slot" in waited)) {
      record(waited.refused, prepared);
      return answered(
        maskValue(errorResult(refusalMessage({ name, origin, caps, admission: waited })), prepared.secrets),
      );
    }
    try {
      return await next(call);
    } finally {
      waited.slot.release();
    }
  };
}
