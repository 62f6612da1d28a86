// What a registry says about itself (`Registry.status()`, for the console and the log): per source, the version
// serving and when it was published, or why its latest text was not published, each error with its place.

import { messageOf, UserError } from "../catalog/errors.js";
import type { Diagnostic } from "../catalog/types.js";

export interface SourceError {
  message: string;
  file?: string;
  /** 1-based, where the validator knows it (as `validate` shows it). */
  line?: number;
  column?: number;
  /** JSON pointer into the source. */
  pointer?: string;
}

export interface SourceStatus {
  /** The file's name in the registry directory (or the path given to `serve --watch`). */
  name: string;
  /** Published versions of this source so far; 0 while none has been. */
  version: number;
  /** The first 12 hex digits of the SHA-256 of the text serving. */
  digest?: string;
  /** When the version serving was published (ISO 8601). */
  publishedAt?: string;
  /** published: its latest text serves; rejected: its latest text failed (`errors`), the previous version serves. */
  state: "published" | "rejected";
  /** Why the latest text was not published; empty when it was. */
  errors: SourceError[];
  /** When the latest text was checked (ISO 8601). */
  checkedAt: string;
}

export interface RegistryStatus {
  /** The directory watched (`--registry`), or the files (`--watch`). */
  watching: string;
  /** Catalog versions published so far, the first (at start) being 1. */
  version: number;
  publishedAt: string;
  tools: number;
  /** How long the last publish took, from reading the sources to serving the new catalog (ms). */
  reloadMs: number;
  sources: SourceStatus[];
}

/** What `Registry.publish` did with one source. */
export type PublishOutcome =
  | { published: true; name: string; version: number; tools: number }
  | { published: false; name: string; errors: SourceError[] };

/** A validator's diagnostic as a SourceError (the place kept apart from the message). */
export function diagnosticError(d: Diagnostic): SourceError {
  return {
    message: d.tool ? `[${d.tool}] ${d.message}` : d.message,
    ...(d.file !== undefined ? { file: d.file } : {}),
    ...(d.line !== undefined ? { line: d.line } : {}),
    ...(d.column !== undefined ? { column: d.column } : {}),
    ...(d.pointer !== undefined ? { pointer: d.pointer } : {}),
  };
}

/**
 * A refusal thrown while loading (a parse error, a definition against its schema, a manifest beside other
 * sources) as SourceErrors: one per `file:line:column #pointer: message` line it lists, as `validate` prints them.
 * Bugs are rethrown.
 */
export function thrownErrors(error: unknown, file: string): SourceError[] {
  if (!(error instanceof UserError)) throw error;
  const message = messageOf(error);
  const placed = message
    .split("\n")
    .map((line) => /^\s*(.+?):(\d+):(\d+) #(\S*): (.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, at, line, column, pointer, text]) => ({
      message: text!,
      file: at!,
      line: Number(line),
      column: Number(column),
      pointer: pointer!,
    }));
  if (placed.length > 0) return placed;
  const at = /:(\d+):(\d+)\b/.exec(message);
  return [{ message, file, ...(at ? { line: Number(at[1]), column: Number(at[2]) } : {}) }];
}

/** One line per error, as `validate` writes them: `file:line:column #pointer: message`. */
export function errorLines(errors: SourceError[]): string {
  return errors
    .map((e) =>
      e.file !== undefined && e.message.includes(e.file)
        ? `  ${e.message}`
        : e.line !== undefined
          ? `  ${e.file ?? ""}:${e.line}:${e.column ?? 1} #${e.pointer ?? ""}: ${e.message}`
          : `  ${e.message}${e.pointer !== undefined ? ` (${e.file ?? ""}#${e.pointer})` : ""}`,
    )
    .join("\n");
}
