// The audit log: one JSON line per tool call, for the people who answer for what agents did. Secrets never appear:
// the URL is masked by value, and the values of sensitive-looking arguments are redacted.

import { openSync, writeSync } from "node:fs";
import { messageOf, UserError } from "../../catalog/errors.js";
import { boundedRecord } from "./audit-line.js";
import type { AuditLog, AuditRecord } from "./audit-record.js";
import { maskClipped, maskValue } from "../secrets/secrets.js";

/** Names whose values are never logged, whatever the value looks like. */
const SENSITIVE = /pass(word)?|secret|token|api[-_]?key|auth|credential|cookie|session|private|ssn|card|cvv|pin\b/i;
const MAX_LOGGED_CHARS = 200;
const MAX_URL_CHARS = 2_000;

/** Top-level argument names with their values made safe to log: scalars shown (cut), structures summarised. */
export function loggedArguments(args: unknown): Record<string, unknown> {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return {};
  const logged: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    let shown: unknown;
    if (SENSITIVE.test(name)) shown = "[redacted]";
    else if (typeof value === "string")
      shown = value.length > MAX_LOGGED_CHARS ? `${value.slice(0, MAX_LOGGED_CHARS)}…` : value;
    else if (value === null || typeof value === "number" || typeof value === "boolean") shown = value;
    else if (Array.isArray(value)) shown = `[array of ${value.length}]`;
    else shown = "[object]";
    Object.defineProperty(logged, name, { value: shown, enumerable: true, writable: true, configurable: true });
  }
  return logged;
}

/**
 * The values of sensitive-looking arguments (scalars), to mask wherever else they show: in the URL of a query
 * parameter, say, while the arguments themselves are redacted by name.
 */
export function sensitiveValues(args: unknown): string[] {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return [];
  return Object.entries(args)
    .filter(([name, value]) => SENSITIVE.test(name) && (typeof value === "string" || typeof value === "number"))
    .map(([, value]) => String(value));
}

/** A URL already masked, cut so one call cannot write a megabyte line (records are cut in `safeRecord`). */
export function loggedUrl(url: string): string {
  return url.length > MAX_URL_CHARS ? `${url.slice(0, MAX_URL_CHARS)}…` : url;
}

/**
 * The record with every secret value masked wherever it shows, then bounded as a whole line (a long URL, field or
 * argument list is cut after it is masked).
 */
export function safeRecord(record: AuditRecord, secrets: string[]): AuditRecord {
  const safe = maskValue(record, secrets);
  if (record.url !== undefined) safe.url = maskClipped({ text: record.url, secrets, maxChars: MAX_URL_CHARS });
  return boundedRecord(safe);
}

/**
 * An audit log appending JSON lines to a file, or to stderr for "-". Writes are synchronous: a line must not be
 * lost when the process stops right after a call, and a call's line costs microseconds.
 */
export function openAuditLog(target: string): AuditLog {
  if (target === "-") return { write: (record) => void process.stderr.write(`${JSON.stringify(record)}\n`) };
  let fd: number;
  try {
    fd = openSync(target, "a");
  } catch (error) {
    throw new UserError({
      code: "E_AUDIT_LOG",
      message: `--audit-log ${target}: cannot open for appending: ${messageOf(error)}`,
    });
  }
  return {
    write: (record) => {
      writeSync(fd, `${JSON.stringify(record)}\n`);
    },
  };
}

/** For tests and libraries that collect records in memory. */
export function memoryAuditLog(): AuditLog & { records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  return { records, write: (record) => void records.push(record) };
}
