// The runtime engine's contract with its callers (the MCP binding, `openapi-mcp call`, generated servers).
// Shapes follow MCP's tools/call result, but nothing here imports the SDK: the binding passes them through.

import { OpenApiMcpError } from "../catalog/errors.js";
import type { ListedTool } from "../catalog/listing.js";
import type { ToolAnnotations } from "../catalog/types.js";
import type { IncomingTrace } from "./http/trace-context.js";
import type { SignInAnswer, SignInPrompt } from "./credentials/sign-in-prompt.js";

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | {
      type: "resource";
      resource: { uri: string; mimeType: string; blob: string } | { uri: string; mimeType: string; text: string };
    };

/** What a tool call returns: MCP's CallToolResult. Failures of the call (not of the protocol) set `isError`. */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An HTTP request ready to send: the origin and raw path (with query) kept apart, so nothing re-normalizes the path. */
export interface PreparedRequest {
  method: string;
  /** `https://api.example.com` */
  origin: string;
  /** Raw path and query, exactly as sent: `/v1/pets/a%2Fb?tag=x&tag=y`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: Uint8Array;
}

/**
 * Who made a request, as endpoint auth verified it (`serve --transport http --auth …`): what profiles match on and
 * per-user upstream credentials come from. Absent without endpoint auth (stdio, an open HTTP endpoint).
 */
export interface Caller {
  /** Stable per caller (the principal's key): sessions, approval states, budgets and stored tokens are bound to it. */
  principal: string;
  /** The verified token's claims (a JWT's payload), or `{ token: <name> }` for a static token: never the token. */
  claims: Readonly<Record<string, unknown>>;
  /**
   * The verified MCP access token itself, only for an RFC 8693 token exchange: never sent upstream as it is (MCP
   * forbids token passthrough), never logged.
   */
  accessToken?: string;
  /** The request's headers, names in lower case, Authorization removed: a source reads only those it names. */
  headers: Readonly<Record<string, string>>;
}

export interface CallContext {
  /** The verified caller; absent without endpoint auth. */
  caller?: Caller;
  /** Aborted when the client cancels the call or the server shuts down. */
  signal?: AbortSignal;
  /** The MCP session, for logs and audit. */
  sessionId?: string;
  /**
   * Asks the human to approve a call (MCP elicitation), supplied by the binding when the client can be asked.
   * Absent: approval cannot be asked for, so a call that needs it is refused. `signal` withdraws the question (the
   * console answered first, approval-routes.ts).
   */
  approve?: (request: ApprovalRequest, options?: { signal?: AbortSignal }) => Promise<ApprovalAnswer>;
  /** Where to ask instead of the policy's route (the console's Try it page asks its own queue). */
  approvalRoute?: "client" | "console" | "both";
  /**
   * Asks the person to sign in at a URL (MCP URL elicitation) when a per-user scheme needs it, supplied by the
   * binding; on `signedIn` the call obtains its credentials again. Absent: the error result gives the URL.
   */
  signIn?: (prompt: SignInPrompt) => Promise<SignInAnswer>;
  /**
   * The W3C trace context the client sent with the call (MCP `_meta.traceparent`/`tracestate`), as it came: the
   * engine reads it strictly and ignores it when invalid (trace-context.ts).
   */
  trace?: IncomingTrace;
  /** Set when the call comes from a code mode script (`execute`): named on the call's audit line. */
  script?: ScriptOrigin;
  /**
   * Told the secret values the call's request carries, once its credentials are applied (again for a retry): code
   * mode masks what a script shows with those of its own calls.
   */
  carried?: (secrets: readonly string[]) => void;
}

/** The code mode tool a call came from and a short digest of the script that made it. */
export interface ScriptOrigin {
  via: "execute";
  /** The first 12 hex digits of the script's SHA-256: the same script, the same digest. */
  digest: string;
}

/** What the human is shown before a call that needs approval: secrets already masked. */
export interface ApprovalRequest {
  tool: string;
  title: string;
  method: string;
  /** The URL as sent, credentials masked. */
  url: string;
  arguments: Record<string, unknown>;
  /** Set when a queue kept only the part of long arguments a person is shown (approval-message.ts). */
  argumentsCut?: { shown: string; chars: number };
  effect: "read" | "write" | "destructive";
  /** How long to wait for an answer before taking it as no (ms). */
  timeoutMs: number;
}

/**
 * accept: send it; decline/cancel: the human said no; timeout: no answer in time; unsupported: cannot ask; busy: too
 * many calls wait for the console already (approval-bounds.ts).
 */
export type ApprovalAnswer = "accept" | "decline" | "cancel" | "timeout" | "unsupported" | "busy";

/** A call begun by a client that answers approval later (Engine.beginCall). */
export interface StartCall {
  name: string;
  args: unknown;
  /** The verified caller (endpoint auth), whom the approval state is bound to; none without endpoint auth. */
  principal?: string;
  context?: CallContext;
}

/** What to ask before a begun call is sent, under `questionId`, and the state to bring back with the answer. */
export interface PendingApproval {
  questionId: string;
  request: ApprovalRequest;
  /** Opaque to the client, signed and expiring: sent back as it came, it lets any replica resume the call. */
  state: string;
}

/** A begun call: its result, or the approval it waits for. */
export type BegunCall = { result: ToolResult } | { approval: PendingApproval };

/** The same call again, with the state it was given and the person's answer (Engine.resumeCall). */
export interface ResumeCall extends StartCall {
  state: unknown;
  /** The answer, or how to find it by the question's id (the key it was asked under). */
  answer: ApprovalAnswer | ((questionId: string) => ApprovalAnswer);
}

/**
 * A tools/list entry as served. The engine's carry every annotation; dynamic mode's three tools only those that
 * differ from MCP's defaults, to keep their up-front cost small.
 */
export type ServedTool = Omit<ListedTool, "annotations"> & { annotations: Partial<ToolAnnotations> };

/** A listing serialized once: each entry of `listTools()` as its JSON text, with the tools' names, in order. */
export interface ListingJson {
  names: readonly string[];
  texts: readonly string[];
}

/**
 * The core every provider has: what the MCP binding needs to list and call tools. A provider with only these (a
 * program's own, a test's fake) is served with the defaults of ProviderBase (engine/provider-base.ts).
 */
export interface ToolProvider {
  listTools(): ServedTool[];
  hasTool(name: string): boolean;
  /** Never rejects for a failed call: failures are results with `isError: true`. */
  callTool(name: string, args: unknown, context?: CallContext): Promise<ToolResult>;
}

/**
 * A provider as the binding serves it: the core, and what the binding asks of every provider. ProviderBase gives
 * each a default (a plain provider's meaning); a wrapper extending DelegatingProvider overrides what it changes.
 */
export interface ServedProvider extends ToolProvider {
  /** `listTools()` as JSON, when the provider has it serialized already (sent as it is); else undefined. */
  listingJson(): ListingJson | undefined;
  /** For clients that answer approval later: a call needing it ends with what to ask and a signed state. */
  beginCall(call: StartCall): Promise<BegunCall>;
  /** The call a state from beginCall stands for, with the person's answer: checked, then sent if approved. */
  resumeCall(call: ResumeCall): Promise<ToolResult>;
  /** With profiles (profiled.ts): what is listed and called depends on who asks. */
  perCaller(): boolean;
  /**
   * The provider that answers this caller (none: stdio, no endpoint auth), which lists, knows and calls only its
   * profile's tools; throws ProfileRefused when the caller has no profile. Itself when not perCaller().
   */
  forCaller(caller: Caller | undefined): ServedProvider;
  /** Whether the tools change while serving (`serve --registry`, `--watch`). */
  changing(): boolean;
  /** The provider serving now, which one request uses throughout (a call starts and ends on one catalog). */
  snapshot(): ServedProvider;
  /** Tells `listener` each time the tools change; returns what stops telling it. */
  onListChanged(listener: () => void): () => void;
}

export type OutputValidation = "strict" | "warn" | "off";

/** A problem with what the model sent: reported as an error result naming the argument, never thrown to the client. */
export class ArgumentError extends OpenApiMcpError {
  /** JSON pointer into the arguments, e.g. `/body/name`. */
  readonly pointer: string;
  constructor({ message, pointer }: { message: string; pointer: string }) {
    super({ code: "E_ARGUMENT", message });
    this.pointer = pointer;
  }
}
