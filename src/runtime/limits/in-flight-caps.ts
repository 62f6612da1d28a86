// A call's in-flight limits, from the most general to the most particular: the defaults, the engine's options
// (command line, settings), the source's own (a manifest's `inFlight`), the settings' for that source, and last
// the caller's profile for what concerns the caller alone. And what a refused call is told. Code mode's scripts
// count against the limits of no source in particular: the engine's and the caller's profile's.

import type { Catalog, InFlightLimits, Tool } from "../../catalog/types.js";
import { formatDuration } from "../durations.js";
import type { Admission, InFlightCaps } from "./in-flight.js";
import {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
  DEFAULT_MAX_QUEUED,
  DEFAULT_QUEUE_TIMEOUT_MS,
} from "./in-flight.js";
import type { RuntimeSettings } from "../options.js";
import type { Caller } from "../types.js";

export interface InFlightOptions
  extends Pick<
    RuntimeSettings,
    "maxInFlight" | "maxInFlightPerPrincipal" | "maxQueued" | "queueTimeoutMs" | "inFlight"
  > {
  catalog: Pick<Catalog, "sources">;
  inFlightFor?: (caller: Caller | undefined) => InFlightLimits | undefined;
}

export function inFlightCaps({
  engine,
  tool,
  caller,
}: {
  engine: InFlightOptions;
  /** Absent: no source's own limits apply (an execute, whose calls may go to any). */
  tool?: Pick<Tool, "source">;
  caller: Caller | undefined;
}): InFlightCaps {
  const source = tool && engine.catalog.sources.find((s) => s.id === tool.source)?.inFlight;
  const settings = tool && engine.inFlight?.sources?.[tool.source || "default"];
  const profile = engine.inFlightFor?.(caller);
  const layers: Array<InFlightLimits | undefined> = [engine, source, settings];
  const pick = (key: keyof InFlightLimits, fallback: number, own?: InFlightLimits): number => {
    let value = fallback;
    for (const layer of [...layers, own]) if (layer?.[key] !== undefined) value = layer[key];
    return value;
  };
  return {
    // The origin's limit protects the API: the operator's, never a caller's.
    perOrigin: pick("maxInFlight", DEFAULT_MAX_IN_FLIGHT),
    perPrincipal: pick("maxInFlightPerPrincipal", DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL, profile),
    queue: pick("maxQueued", DEFAULT_MAX_QUEUED, profile),
    queueTimeoutMs: pick("queueTimeoutMs", DEFAULT_QUEUE_TIMEOUT_MS, profile),
  };
}

/** What a call refused a slot is told: which limit held it, that nothing was sent, and to try again later. */
export function refusalMessage({
  name,
  origin,
  caps,
  admission,
}: {
  name: string;
  origin: string;
  caps: InFlightCaps;
  admission: Exclude<Admission, { slot: unknown }>;
}): string {
  if (admission.refused === "cancelled")
    return `${name} was cancelled while it waited for its turn to call ${origin}. Nothing was sent.`;
  const limit =
    admission.binding === "principal"
      ? `the limit of ${caps.perPrincipal} calls in flight per caller to ${origin}`
      : `the limit of ${caps.perOrigin} calls in flight to ${origin}, all callers together`;
  if (admission.refused === "queue_full")
    return `${name} was not sent: ${limit} is reached and ${caps.queue} more of your calls are already waiting there (the queue's bound). Nothing was sent; try again later, when fewer of your calls are in flight.`;
  return `${name} was not sent: it waited ${formatDuration(caps.queueTimeoutMs)} (the queue timeout) for a slot under ${limit}, and none came free. Nothing was sent; try again later.`;
}
