// How mismatches are told to the model: the first few, each cut to a readable length, and how many more there
// are, so the message stays a few KB whatever the value held (a 1 MB field name, a 500-value enum, a million
// wrong items).

import { type Mismatch, placeOf } from "./validate.js";

const PLACE_CHARS = 120;
const MESSAGE_CHARS = 240;

export function listMismatches({
  mismatches,
  shown,
  place = placeOf,
}: {
  mismatches: readonly Mismatch[];
  shown: number;
  /** How a pointer is named (default: as an argument, `body.tags[0]`). */
  place?: (pointer: string) => string;
}): string {
  const listed = mismatches
    .slice(0, shown)
    .map((m) => `${cutMiddle(place(m.pointer), PLACE_CHARS)} ${cutEnd(m.message, MESSAGE_CHARS)}`);
  const more = mismatches.length - listed.length;
  return more > 0 ? `${listed.join("; ")}; and ${more} more` : listed.join("; ");
}

/** A long place keeps its start (which argument) and its end (which field). */
function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}

function cutEnd(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
