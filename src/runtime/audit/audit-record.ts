// What one audit line says about a call, and where lines go: the shapes the engine writes, the audit file and the
// console's Activity page read, and the line's bounds (audit-line.ts) cut.

export type AuditOutcome =
  | "ok"
  | "http_error"
  | "invalid_arguments"
  | "missing_credentials"
  | "secret_unavailable"
  | "denied"
  | "not_approved"
  | "state_refused"
  | "rate_limited"
  | "queue_full"
  | "queue_timeout"
  | "timeout"
  | "network_error"
  | "output_mismatch"
  | "cancelled";

export interface AuditRecord {
  time: string;
  session?: string;
  /** The verified caller's principal (its key, never a token); absent without endpoint auth. */
  principal?: string;
  /** The profile the call was made under, when the server has profiles. */
  profile?: string;
  /** The W3C trace the client's call belongs to, when it sent a valid `traceparent`. */
  traceId?: string;
  /** The parent-id our request carried in its `traceparent` (the upstream's parent span). */
  spanId?: string;
  tool: string;
  /** The code mode tool the call came from (`execute`), for calls a script made. */
  via?: "execute";
  /** The script's digest (first 12 hex digits of its SHA-256), for calls a script made. */
  script?: string;
  method?: string;
  /** As sent, credentials masked. */
  url?: string;
  /** Argument names, with scalar values where they are not sensitive. */
  arguments: Record<string, unknown>;
  /** How many arguments the line has no room for (see MAX_AUDIT_LINE_BYTES); absent when all are shown. */
  argumentsNotShown?: number;
  status?: number;
  /** The `${file:…}`/`${cmd:…}` references the call's credentials came from (never their values). */
  secrets?: string[];
  /** Invisible and bidirectional control characters removed from the response's text (--response-text strip). */
  hiddenCharactersRemoved?: number;
  /** Who approved or declined the call in the console (`console:<admin>`); absent when the client's person did. */
  approvedBy?: string;
  declinedBy?: string;
  durationMs: number;
  outcome: AuditOutcome;
}

export interface AuditLog {
  write(record: AuditRecord): void;
}
