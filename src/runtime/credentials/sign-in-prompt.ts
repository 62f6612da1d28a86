// What a caller is asked when a per-user credential needs a sign-in, and what asking came to: shared by the
// per-user modes (user-credentials.ts), the engine's contract (types.ts) and the MCP binding, which asks.

/**
 * A sign-in the caller can do now (sign-in.ts): the binding may ask the person to open `url` (MCP URL elicitation)
 * and wait until `completed`, after which the call obtains its value again. Without a binding that can ask, the
 * `missing` text (which holds the URL) is the answer.
 */
export interface SignInPrompt {
  url: string;
  /** What the person is told beside the URL. */
  message: string;
  /** True once the caller has signed in (false when `timeoutMs` passes or `signal` fires first). */
  completed(options: { signal?: AbortSignal; timeoutMs?: number }): Promise<boolean>;
}

/** What asking for a sign-in came to: only `signedIn` lets the call try again; `deferred`: asked later (2026-07-28). */
export type SignInAnswer = "signedIn" | "declined" | "timeout" | "unsupported" | "deferred";
