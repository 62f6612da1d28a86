// One base error with a code from the closed set in error-codes.ts. `UserError`s are the user's to fix (a bad spec, a missing file, a wrong
// option): the CLI prints their message alone. Anything else is a bug and is shown with its stack.

import type { ErrorCode } from "./error-codes.js";

export class OpenApiMcpError extends Error {
  readonly code: ErrorCode;
  constructor({ code, message, cause }: { code: ErrorCode; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** A problem in what the user gave us: its message names the place and is shown without a stack trace. */
export class UserError extends OpenApiMcpError {}

export function isUserError(error: unknown): error is UserError {
  return error instanceof UserError;
}

/** `file#/json/pointer` or `file`, for messages. */
export function formatPlace({ file, pointer }: { file?: string; pointer?: string }): string {
  if (file && pointer !== undefined) return `${file}#${pointer}`;
  return file ?? (pointer !== undefined ? `#${pointer}` : "");
}

/** What went wrong, for a message or a log line: an Error's message, or whatever else was thrown, as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A bug's log line: the stack where there is one, else what `messageOf` says. */
export function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
