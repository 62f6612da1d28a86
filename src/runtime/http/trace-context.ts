// W3C Trace Context (https://www.w3.org/TR/trace-context/, Level 1 Recommendation; § numbers are its sections):
// the `traceparent` and `tracestate` a client sends with a call, read strictly, and the pair our upstream request
// carries as a participating intermediary (§3.4 "Update parent-id": same trace-id and flags, our own parent-id).

import { randomBytes } from "node:crypto";

export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  parentId: string;
  /** 2 lower-case hex digits. */
  flags: string;
}

/** What a client sent: read from anywhere (MCP `_meta`), so of any type until parsed. */
export interface IncomingTrace {
  traceparent?: unknown;
  tracestate?: unknown;
}

/** The headers of our request, and the ids the audit line names. */
export interface OutgoingTrace {
  traceId: string;
  /** Our request's parent-id: the span the upstream sees as its parent. */
  spanId: string;
  headers: { traceparent: string; tracestate?: string };
}

// §3.2.2: version "-" trace-id "-" parent-id "-" trace-flags, HEXDIGLC only (upper case is invalid).
const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// §3.2.4: a higher version is read by its first four fields; it may only add fields after another dash.
const HIGHER = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_PARENT_ID = "0".repeat(16);
/** §3.2.2.5.1: the sampled flag, the only one §3.2.4 lets us read from a higher version. */
const SAMPLED = 0x01;

/** A `traceparent` as the spec allows it, or undefined: an invalid one is ignored (§3.2.2.3, §3.2.2.4), never an error. */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== "string") return undefined;
  const version = value.slice(0, 2);
  // §3.2.2.1: version ff is invalid.
  if (version === "ff") return undefined;
  const match = version === "00" ? VERSION_00.exec(value) : HIGHER.exec(value);
  if (!match) return undefined;
  const [, traceId = "", parentId = "", flags = ""] = match;
  // §3.2.2.3, §3.2.2.4: all zeroes are invalid ids.
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_PARENT_ID) return undefined;
  // §3.2.4: from a higher version only the sampled bit is read; we send version 00.
  const known = version === "00" ? flags : (Number.parseInt(flags, 16) & SAMPLED).toString(16).padStart(2, "0");
  return { traceId, parentId, flags: known };
}

/** Version 00, the highest this code knows (§3.2.4: what we send is in that version's format). */
export function formatTraceparent({ traceId, parentId, flags }: TraceParent): string {
  return `00-${traceId}-${parentId}-${flags}`;
}

// §3.3.1.3.1: Level 1's simple and multi-tenant keys; Level 2 (draft) relaxes both to this, which holds them all.
const KEY = /^[a-z0-9][a-z0-9_\-*/@]{0,255}$/;
// §3.3.1.3.2: up to 256 printable ASCII characters but "," and "=", not ending in a space.
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** §3.3.1.2: at most 32 list-members. */
const MAX_MEMBERS = 32;
/** §3.3.1.5: we propagate 512 characters of the combined value, the length the spec asks every vendor to carry. */
export const MAX_TRACESTATE_CHARS = 512;
/** §3.3.1.5: entries longer than this are the first to go when the whole is too long. */
const LONG_ENTRY_CHARS = 128;
/** §3.2.4 lets us refuse prohibitively large values: far beyond 32 maximal members, nothing is split. */
const MAX_INPUT_CHARS = 64 * 1024;

/**
 * A `tracestate` as we pass it on: its members in order, optional whitespace and empty members dropped, cut to
 * 512 characters by whole entries as §3.3.1.5 says; undefined when malformed (a bad member, a repeated key, more
 * than 32 members: §3.3.1.2–§3.3.1.4) or empty, which is sent as no header at all.
 */
export function parseTracestate(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_INPUT_CHARS) return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  // §3.3.1.1: spaces and tabs around members are optional whitespace; empty members are allowed.
  for (const piece of value.split(",")) {
    const member = piece.replace(/^[ \t]+|[ \t]+$/g, "");
    if (member === "") continue;
    const equals = member.indexOf("=");
    const key = member.slice(0, equals);
    if (equals < 0 || !KEY.test(key) || !VALUE.test(member.slice(equals + 1)) || keys.has(key)) return undefined;
    keys.add(key);
    members.push(member);
    if (members.length > MAX_MEMBERS) return undefined;
  }
  const size = (list: string[]) => list.join(",").length;
  let kept = members;
  if (size(kept) > MAX_TRACESTATE_CHARS) kept = kept.filter((member) => member.length <= LONG_ENTRY_CHARS);
  while (size(kept) > MAX_TRACESTATE_CHARS) kept = kept.slice(0, -1);
  return kept.length > 0 ? kept.join(",") : undefined;
}

/**
 * The trace context of our upstream request when the client sent a valid `traceparent`: its trace-id and flags
 * with a fresh parent-id of ours, and its `tracestate` passed on (§3.5: we add no entry of our own). Otherwise
 * undefined: no trace is started for a client that did not ask for one, and `tracestate` alone means nothing
 * (§3.3: it is not parsed unless `traceparent` was).
 */
export function childTrace(incoming: IncomingTrace | undefined): OutgoingTrace | undefined {
  const parent = parseTraceparent(incoming?.traceparent);
  if (!parent) return undefined;
  let spanId: string;
  do spanId = randomBytes(8).toString("hex");
  while (spanId === ZERO_PARENT_ID || spanId === parent.parentId);
  const tracestate = parseTracestate(incoming?.tracestate);
  return {
    traceId: parent.traceId,
    spanId,
    headers: {
      traceparent: formatTraceparent({ ...parent, parentId: spanId }),
      ...(tracestate !== undefined ? { tracestate } : {}),
    },
  };
}
