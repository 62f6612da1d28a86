// Per-user upstream credentials: a scheme whose value depends on who calls (issue 14's three modes: a header the
// client forwards, a token obtained by the user's own sign-in, a token exchanged for the caller's MCP token). Each
// mode implements UserCredentials; credentials.ts places the value it gives as the scheme says, exactly as a value
// from the environment, and masks it the same way. A caller without a value gets an error result saying what to do,
// and nothing is sent.

import { OpenApiMcpError } from "../../catalog/errors.js";
import type { Caller } from "../types.js";
import type { SignInPrompt } from "./sign-in-prompt.js";

export type UserCredentialMode = "forwarded" | "signIn" | "exchange";

/** One caller's value for a scheme, or what that caller must do to have one (sign in, send a header). */
export type UserValue = { value: string } | { missing: string; signIn?: SignInPrompt };

export interface UserCredentials {
  readonly mode: UserCredentialMode;
  /** How the value is obtained, for `inspect` and messages: "forwarded from the X-Upstream-Token header". */
  readonly description: string;
  /** The caller's value; `caller` is absent without endpoint auth (stdio, an open endpoint). */
  valueFor(request: { caller: Caller | undefined; scopes: string[]; signal?: AbortSignal }): Promise<UserValue>;
  /** The API refused `value` (401): forget it, so the next call obtains a fresh one (refresh, exchange again). */
  invalidate?(request: { caller: Caller; value: string }): void;
}

/** Per-user credentials by the catalog id of the scheme they stand for. */
export type UserCredentialMap = Readonly<Record<string, UserCredentials>>;

/** The caller has no value for a per-user scheme: the message says what to do; nothing was sent. */
export class UserCredentialsMissing extends OpenApiMcpError {
  constructor(
    message: string,
    /** The sign-in that would give the value, when there is one. */
    readonly signIn?: SignInPrompt,
  ) {
    super({ code: "E_USER_CREDENTIALS", message });
  }
}
