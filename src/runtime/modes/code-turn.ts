// Each `execute` is one of its caller's calls in flight: it waits in the caller's queue for one of the caller's
// slots among the sandbox's workers (sandbox/turns.ts), under the caller's in-flight limits (the engine's, its
// profile's included) and code mode's bounds on what waits. Its api calls take their own slots at their origins.

import type { InFlightCaps } from "../limits/in-flight.js";
import type { ScriptLimits, ScriptQueueLimits, ScriptTurn } from "./sandbox/script.js";
import { DEFAULT_SCRIPT_TURN } from "./sandbox/turns.js";
import type { Caller } from "../types.js";

/** Code mode's settings: the limits on one run and the bounds of the scripts waiting for a worker. */
export type ScriptSettings = ScriptLimits & ScriptQueueLimits;

/** What gives a caller's in-flight limits (the engine). */
export type CallerInFlightCaps = (
  caller: Caller | undefined,
) => Pick<InFlightCaps, "perPrincipal" | "queue" | "queueTimeoutMs">;

/** The limits on one run, and the queue's bounds (the defaults where not given). */
export function scriptSettings(settings: Partial<ScriptSettings> = {}): {
  limits: Partial<ScriptLimits>;
  queue: ScriptQueueLimits;
} {
  const { maxQueued, queueBytes, queueBytesPerPrincipal, ...limits } = settings;
  return {
    limits,
    queue: {
      maxQueued: maxQueued ?? DEFAULT_SCRIPT_TURN.maxQueued,
      queueBytes: queueBytes ?? DEFAULT_SCRIPT_TURN.queueBytes,
      queueBytesPerPrincipal: queueBytesPerPrincipal ?? DEFAULT_SCRIPT_TURN.queueBytesPerPrincipal,
    },
  };
}

/** The caller's share of the sandbox; without a verified caller, every call is one caller (""). */
export function scriptTurn({
  caller,
  inFlight,
  queue,
}: {
  caller: Caller | undefined;
  inFlight: CallerInFlightCaps | undefined;
  queue: ScriptQueueLimits;
}): ScriptTurn {
  const { perPrincipal, queue: queued, queueTimeoutMs } = inFlight?.(caller) ?? DEFAULT_SCRIPT_TURN;
  return { principal: caller?.principal ?? "", perPrincipal, queue: queued, queueTimeoutMs, ...queue };
}
