// How big one audit line may be. Every field a caller can influence (argument names and values, tool name, URL,
// principal, session, profile, who approved) is cut, and the line as a whole is held to MAX_AUDIT_LINE_BYTES of
// UTF-8 JSON: a call with a flood of argument names writes a line that shows the first ones and counts the rest,
// instead of a megabyte line in the log and in the console's Activity ring. Records arrive masked: cutting masked
// text cannot expose a secret (whatever is left was written by the caller or already masked).

import type { AuditRecord } from "./audit-record.js";

/** One audit line, as JSON, in UTF-8 bytes (without its newline). */
export const MAX_AUDIT_LINE_BYTES = 16_384;
/** Each top-level text field (tool, principal, session, profile, approvedBy, …) but the URL. */
const MAX_FIELD_BYTES = 256;
/** The URL, already masked and cut to 2,000 characters; its JSON escapes can still grow it. */
const MAX_URL_BYTES = 4_096;
/** Each argument name. */
const MAX_NAME_BYTES = 200;
/** The `secrets` references (operator-written, bounded anyway). */
const MAX_REFERENCES_BYTES = 1_024;
/** Room kept for `argumentsNotShown` and the commas around it. */
const COUNT_RESERVE = 40;

/** The size of `value` written as JSON, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

/** `text` cut so that it takes at most `maxBytes` as a JSON string (quotes and escapes counted), marked `…`. */
export function clipJson(text: string, maxBytes: number): string {
  // Each character takes at least one byte: only the first maxBytes can fit, so a huge text costs no more.
  if (text.length <= maxBytes && jsonBytes(text) <= maxBytes) return text;
  let low = 0;
  let high = Math.min(text.length, maxBytes);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(`${text.slice(0, mid)}…`) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  // Never half a surrogate pair.
  const end = low > 0 && isHighSurrogate(text.charCodeAt(low - 1)) ? low - 1 : low;
  return `${text.slice(0, end)}…`;
}

/**
 * The record held to MAX_AUDIT_LINE_BYTES: text fields cut, then argument names and values in order while they
 * fit, the rest counted in `argumentsNotShown`. The fixed fields take at most ~7 KiB (ten text fields of 256
 * bytes, a URL of 4 KiB, references of 1 KiB, numbers), so the arguments always have room for their first ones.
 */
export function boundedRecord(record: AuditRecord): AuditRecord {
  const bounded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === "arguments") continue;
    if (key === "url" && typeof value === "string") bounded[key] = clipJson(value, MAX_URL_BYTES);
    else if (key === "secrets" && Array.isArray(value)) bounded[key] = boundedList(value.map(String));
    else if (typeof value === "string") bounded[key] = clipJson(value, MAX_FIELD_BYTES);
    else bounded[key] = value;
  }
  const line = bounded as unknown as AuditRecord;
  line.arguments = {};
  const { shown, notShown } = boundedArguments({
    args: record.arguments,
    budget: MAX_AUDIT_LINE_BYTES - jsonBytes(line) - COUNT_RESERVE,
  });
  line.arguments = shown;
  if (notShown > 0) line.argumentsNotShown = notShown;
  return line;
}

/** Arguments in order while they fit in `budget` bytes (names cut); how many did not. */
function boundedArguments({ args, budget }: { args: Record<string, unknown>; budget: number }): {
  shown: Record<string, unknown>;
  notShown: number;
} {
  const shown: Record<string, unknown> = {};
  let used = 0;
  let notShown = 0;
  for (const [name, value] of Object.entries(args)) {
    const key = clipJson(name, MAX_NAME_BYTES);
    // name, colon, value and a comma; two names cut to one prefix show once, the second counted.
    const size = jsonBytes(key) + 1 + jsonBytes(value) + 1;
    if (used + size > budget || Object.hasOwn(shown, key)) {
      notShown += 1;
      continue;
    }
    used += size;
    Object.defineProperty(shown, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { shown, notShown };
}

/** A list of texts within MAX_REFERENCES_BYTES, the rest said as `(and N more)`. */
function boundedList(items: string[]): string[] {
  const shown: string[] = [];
  let used = 2 + 20; // brackets, and room for the count
  for (const [index, item] of items.entries()) {
    const text = clipJson(item, MAX_FIELD_BYTES);
    used += jsonBytes(text) + 1;
    if (used > MAX_REFERENCES_BYTES) return [...shown, `(and ${items.length - index} more)`];
    shown.push(text);
  }
  return shown;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
