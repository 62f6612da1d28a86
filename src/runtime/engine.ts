// The runtime engine: policy → validate the arguments → build the request exactly as the operation says → add
// credentials → ask a human when the policy says so → rate limit → send → map and check the response → audit.
// The one implementation `serve`, `call` and generated servers share; it reads only the catalog.

import { OpenApiMcpError } from "../catalog/errors.js";
import { type ListedTool, Listing } from "../catalog/listing.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import { toolSecrets, unassignedUse } from "../catalog/secret-reads.js";
import type { Catalog, Tool } from "../catalog/types.js";
import { loggedArguments, loggedUrl, safeRecord, sensitiveValues } from "./audit/audit.js";
import type { AuditOutcome } from "./audit/audit-record.js";
import { askApproval, routeOf } from "./approvals/approval-routes.js";
import { argumentDigest } from "./approvals/canonical-json.js";
import {
  applyCredentials,
  describeAlternatives,
  type Environment,
  missingCredentials,
  sharedSecretSources,
} from "./credentials/credentials.js";
import { type UserCredentialMap, UserCredentialsMissing } from "./credentials/user-credentials.js";
import { formatDuration } from "./durations.js";
import { profileBudgetKeys } from "./profiles/profile-budgets.js";
import { type Admission, InFlightGate, type InFlightCaps } from "./limits/in-flight.js";
import { inFlightCaps, refusalMessage } from "./limits/in-flight-caps.js";
import { send, sharedDispatcher, UpstreamFailure, type UpstreamResponse } from "./http/client.js";
import {
  clipText,
  DEFAULT_MAX_ARGUMENT_VALUES,
  DEFAULT_MAX_ARRAY_ITEMS,
  measureArguments,
  QUOTED_NAME_CHARS,
} from "./checks/bounds.js";
import { listMismatches } from "./checks/mismatches.js";
import { TokenProvider, type TokenSource } from "./credentials/oauth.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "./options.js";
import {
  DEFAULT_POLICIES,
  isListed,
  type Policies,
  parsePolicies,
  type Resolved,
  resolve as resolvePolicy,
} from "./approvals/policy.js";
import { type Limiter, RateLimiter, type RateLimitKey, sourceKey, toolKey } from "./limits/rate-limit.js";
import { RateLimitGate } from "./limits/request-gate.js";
import { buildRequest } from "./http/request.js";
import { errorResult, mapResponse } from "./http/response.js";
import { maskResponse } from "./secrets/masked-response.js";
import { ResponseText } from "./http/response-text.js";
import { Masker, maskText, maskValue } from "./secrets/secrets.js";
import { childTrace, parseTraceparent } from "./http/trace-context.js";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  ArgumentError,
  type BegunCall,
  type CallContext,
  type Caller,
  type OutputValidation,
  type PreparedRequest,
  type ResumeCall,
  type StartCall,
  type ToolProvider,
  type ToolResult,
} from "./types.js";
import { placeOf, Validator } from "./checks/validate.js";
import { SecretUnavailable } from "./secrets/secret-references.js";
import type { SecretSources } from "./secrets/secret-sources.js";
import { RequestStates } from "./approvals/approval-states.js";
import { stateRefusalMessage } from "./approvals/approval-state-refusals.js";

import type { CallerInFlight, EngineOptions, EngineProfile, Shared } from "./engine-options.js";

export const DEFAULT_MAX_ARGUMENT_BYTES = 4 * 1024 * 1024;
/** Mismatches of arguments named in an error result; the rest are counted. */
const MISMATCHES_SHOWN = 10;
/** URLs in messages are cut to this (as in the audit log). */
const SHOWN_URL_CHARS = 2_000;

type Prepared = {
  tool: Tool;
  request: PreparedRequest;
  secrets: string[];
  invalidate?: () => void;
  placeholders?: string[];
  /** The `${file:…}`/`${cmd:…}` references its credentials and headers came from (audit line). */
  references?: string[];
  /** The parent-id our `traceparent` header gives this request, when it carries one (trace-context.ts). */
  spanId?: string;
};
/** A dry run (`call --dry-run`) shows a placeholder where an unset credential would go instead of stopping. */
export type PrepareContext = CallContext & { dryRun?: boolean };
type Stopped = { error: ToolResult; outcome: AuditOutcome };
type Checked = { tool: Tool; given: unknown };
/** A call past its checks (and approval), on its way to the upstream. */
interface Sending {
  prepared: Prepared;
  name: string;
  args: unknown;
  context: CallContext;
  record: Recorder;
}
type Recorder = (
  outcome: AuditOutcome,
  extra?: {
    request?: PreparedRequest;
    status?: number;
    secrets?: string[];
    references?: string[];
    spanId?: string;
    hidden?: number;
    /** Who decided in the console (`console:<admin>`). */
    approvedBy?: string;
    declinedBy?: string;
  },
) => void;

export class Engine implements ToolProvider {
  private readonly tools: Map<string, Tool>;
  private readonly validator: Validator;
  private readonly outputValidation: OutputValidation;
  private readonly policies: Policies;
  private readonly limiter: Limiter;
  private readonly gate: InFlightGate;
  private readonly tokens: TokenSource;
  private listed: ListedTool[] | undefined;
  private states: RequestStates | undefined;

  constructor(
    private readonly options: EngineOptions,
    shared?: Shared,
  ) {
    this.tools = new Map(options.catalog.tools.map((tool) => [tool.name, tool]));
    this.validator = shared?.validator ?? new Validator({ definitions: options.catalog.definitions });
    this.outputValidation = options.outputValidation ?? "strict";
    this.policies = options.policies ?? DEFAULT_POLICIES;
    this.limiter = shared?.limiter ?? options.limiter ?? new RateLimiter(options.clock ? { clock: options.clock } : {});
    this.gate = shared?.gate ?? new InFlightGate();
    this.tokens =
      shared?.tokens ??
      options.tokens ??
      new TokenProvider({
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
  }

  /**
   * This engine as one profile sees it (profiles.ts): only its tools exist, its policy entries apply after the
   * server's, and its budgets count per caller. Rate limits, token caches, validation and approval states are
   * shared with this engine, so the server's tool and source limits hold across every profile.
   */
  withProfile({ name, tools, policy = [], budgets, inFlight, userSchemes }: EngineProfile): Engine {
    const { catalog } = this.options;
    const policies = parsePolicies(
      policy,
      catalog.tools.map((tool) => tool.name),
      this.policies,
    );
    return new Engine(
      {
        ...this.options,
        catalog: { ...catalog, tools: catalog.tools.filter(tools) },
        policies,
        requestStates: this.requestStates(),
        profile: { name, ...(budgets ? { budgets } : {}) },
        ...(inFlight ? { inFlightFor: this.profileInFlight(inFlight) } : {}),
        ...(userSchemes ? { userCredentials: this.onlyUserSchemes(userSchemes) } : {}),
      },
      { validator: this.validator, limiter: this.limiter, gate: this.gate, tokens: this.tokens },
    );
  }

  /**
   * This engine serving another catalog (a registry's reload, reload.ts): the tools, their schemas and the
   * policies change; rate-limit windows, in-flight gates, token caches, approval states (so a 2026-07-28 approval
   * begun before the reload resumes after it), the audit log and the secret sources are this engine's.
   */
  withCatalog({
    catalog,
    policies,
    secretAssignments,
  }: {
    catalog: Catalog;
    policies: Policies;
    /** Restricts the new catalog's secrets (a console draft's engine), whatever this engine's are. */
    secretAssignments?: SecretAssignments;
  }): Engine {
    return new Engine(
      {
        ...this.options,
        catalog,
        policies,
        requestStates: this.requestStates(),
        ...(secretAssignments ? { secretAssignments } : {}),
      },
      {
        validator: new Validator({ definitions: catalog.definitions }),
        limiter: this.limiter,
        gate: this.gate,
        tokens: this.tokens,
      },
    );
  }

  /** The caller's in-flight limits of no source in particular, its profile's included: code mode's scripts'. */
  callerInFlight(caller: Caller | undefined): InFlightCaps {
    return inFlightCaps({ engine: this.options, caller });
  }

  /** A profile's in-flight limits over what this engine's `inFlightFor` says for the caller. */
  private profileInFlight(own: CallerInFlight): (caller: Caller | undefined) => CallerInFlight {
    const base = this.options.inFlightFor;
    return (caller) => ({ ...base?.(caller), ...own });
  }

  /** Every tool of the catalog by name, hidden ones too (what policy entries may name). */
  listToolNames(): string[] {
    return this.options.catalog.tools.map((tool) => tool.name);
  }

  /** The schemes whose value each caller brings (user-credentials.ts). */
  userSchemeIds(): string[] {
    return Object.keys(this.options.userCredentials ?? {});
  }

  private onlyUserSchemes(ids: string[]): UserCredentialMap {
    const all = this.options.userCredentials ?? {};
    return Object.fromEntries(Object.entries(all).filter(([id]) => ids.includes(id)));
  }

  private userSchemes(): { userCredentials?: UserCredentialMap } {
    const { userCredentials } = this.options;
    return userCredentials ? { userCredentials } : {};
  }

  /** The tools/list entries: denied tools are left out (unless refused instead); output schemas only when held to. */
  listTools(): ListedTool[] {
    if (!this.listed) {
      const listing = new Listing(this.options.catalog, { outputSchema: this.outputValidation === "strict" });
      this.listed = this.options.catalog.tools
        .filter((tool) => isListed(tool, this.policies))
        .map((tool) => listing.entry(tool));
    }
    return this.listed;
  }

  /**
   * A tool's policy decision and the rule that made it, denied tools included (the console shows every tool with
   * its policy); undefined for a tool this engine does not have.
   */
  policyOf(name: string): Resolved | undefined {
    const tool = this.tools.get(name);
    return tool ? resolvePolicy(tool, this.policies) : undefined;
  }

  /** A hidden (denied) tool is as unknown to clients as one that does not exist. */
  hasTool(name: string): boolean {
    const tool = this.tools.get(name);
    return tool !== undefined && isListed(tool, this.policies);
  }

  /**
   * The request a call would send, credentials included, with the secret values it carries; or the error result
   * that stops it before anything is sent.
   */
  async prepare(name: string, args: unknown, context: PrepareContext = {}): Promise<Prepared | Stopped> {
    const checked = this.check(name, args, context);
    return "error" in checked ? checked : this.build(checked, context);
  }

  /** The tool and its arguments, bounded and validated; or the error result that stops the call. */
  private check(name: string, args: unknown, context: PrepareContext): Checked | Stopped {
    const tool = this.tools.get(name);
    if (!tool)
      return {
        error: errorResult(`There is no tool named '${clipText(name, QUOTED_NAME_CHARS)}'.`),
        outcome: "invalid_arguments",
      };
    const env = this.environmentOf(tool);
    // A registry source's or draft's secrets are the operator's to assign (secret-assignments.ts): refused before
    // anything is read, whatever the arguments.
    const assignments = this.options.secretAssignments;
    const unassigned =
      assignments && unassignedUse({ tool, credentials: this.options.catalog.credentials, assignments });
    if (unassigned)
      return {
        error: errorResult(`${name} cannot be called: ${unassigned}. Nothing was sent.`),
        outcome: "secret_unavailable",
      };
    // Before the arguments: no other arguments can help, and the model should not be asked to fix them first.
    const missing = context.dryRun
      ? []
      : missingCredentials({ tools: [tool], credentials: this.options.catalog.credentials }, env, this.userSchemes());
    if (missing.length > 0) {
      return {
        error: errorResult(
          `${name} cannot be called: its credentials are missing. Whoever runs this server can ${describeAlternatives(missing[0]!.alternatives)}, in its environment or settings file, then restart it. Nothing was sent.`,
        ),
        outcome: "missing_credentials",
      };
    }
    const given = args ?? {};
    // Bounded before anything else looks at them: a 50 MB argument, or two million small ones, is refused, not
    // validated, built and sent.
    const measured = measureArguments(given, {
      maxBytes: this.options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES,
      maxValues: this.options.maxArgumentValues ?? DEFAULT_MAX_ARGUMENT_VALUES,
      maxArrayItems: this.options.maxArrayItems ?? DEFAULT_MAX_ARRAY_ITEMS,
    });
    if ("tooBig" in measured) {
      return {
        error: errorResult(
          `The arguments for ${name} are too big (${measured.tooBig}). Nothing was sent; send less (for files, a smaller one).`,
        ),
        outcome: "invalid_arguments",
      };
    }
    const mismatches = this.validator.arguments(tool, given);
    if (mismatches[0]?.uncheckable) {
      return {
        error: errorResult(`${name} cannot be called: its arguments ${mismatches[0].message}. Nothing was sent.`),
        outcome: "invalid_arguments",
      };
    }
    if (mismatches.length > 0) {
      const listed = listMismatches({ mismatches, shown: MISMATCHES_SHOWN });
      const partial = mismatches.partial
        ? " (these arguments are large, so only the first mismatch was looked for: check the rest too)"
        : "";
      return {
        error: errorResult(
          `Invalid arguments for ${name}: ${listed}${partial}. Nothing was sent; correct the arguments and call again (the tool's input schema lists what it takes).`,
        ),
        outcome: "invalid_arguments",
      };
    }
    return { tool, given };
  }

  /** The request for checked arguments, credentials added. */
  private async build({ tool, given }: Checked, context: PrepareContext): Promise<Prepared | Stopped> {
    const { name } = tool;
    const env = this.environmentOf(tool);
    const secretSources = this.options.secretSources ?? sharedSecretSources();
    const dryRun = context.dryRun === true;
    try {
      // Only the source's own static headers may name variables: a `${VAR}` in an argument stays literal text.
      const expanded = tool.operation.headers
        ? await expandStaticHeaders({ headers: tool.operation.headers, env, secretSources, dryRun })
        : undefined;
      const operation = expanded ? { ...tool.operation, headers: expanded.headers } : tool.operation;
      const built = buildRequest({ operation, args: given as Record<string, unknown> });
      const offOrigin = this.offOrigin({ tool, url: built.origin });
      if (offOrigin)
        return {
          error: errorResult(`${name} cannot be called: ${offOrigin}. Nothing was sent.`),
          outcome: "secret_unavailable",
        };
      const applied = await applyCredentials({
        request: built,
        security: tool.operation.security,
        credentials: this.options.catalog.credentials,
        env,
        tokens: this.tokens,
        secretSources,
        ...this.userSchemes(),
        ...(context.caller ? { caller: context.caller } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
        ...(dryRun ? { placeholders: true, dryRun } : {}),
      });
      const traced = withTrace(applied.request, context.trace);
      const references = [...new Set([...(applied.references ?? []), ...(expanded?.references ?? [])])];
      // A call's mask list is what this call could carry: its scheme's values in every form, their token-request
      // secrets, the static-header values it expands, and the values its own `${file:}`/`${cmd:}` references gave
      // lately (one rotated away may still be in flight). Not what other tools use: an API can only echo what it
      // was sent, and masking another tool's key here would let this caller test guesses at that key.
      const secrets = [...applied.secrets, ...(expanded?.values ?? []), ...secretSources.recentValues(references)];
      context.carried?.(secrets);
      return {
        tool,
        ...applied,
        ...traced,
        secrets,
        ...(references.length > 0 ? { references } : {}),
      };
    } catch (error) {
      if (error instanceof SecretUnavailable) {
        return {
          error: errorResult(`${name} cannot be called: ${error.message}. Nothing was sent.`),
          outcome: "secret_unavailable",
        };
      }
      if (error instanceof ArgumentError) {
        return {
          error: errorResult(
            `Invalid arguments for ${name}: ${placeOf(error.pointer)}: ${error.message}. Nothing was sent.`,
          ),
          outcome: "invalid_arguments",
        };
      }
      if (error instanceof UserCredentialsMissing) {
        // Asked once: after the person signed in, the credentials are looked up again, without asking a second time.
        if (error.signIn && context.signIn) {
          const { signIn: _asked, ...rest } = context;
          if ((await context.signIn(error.signIn)) === "signedIn") return this.build({ tool, given }, rest);
        }
        return {
          error: errorResult(`${name} cannot be called: ${error.message} Nothing was sent.`),
          outcome: "missing_credentials",
        };
      }
      if (error instanceof OpenApiMcpError)
        return { error: errorResult(`${name} cannot be called: ${error.message}`), outcome: "network_error" };
      throw error;
    }
  }

  async callTool(name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const record = this.recorder({ name, args, context });
    const denied = this.denied(name, record);
    if (denied) return denied;
    const prepared = await this.prepare(name, args, context);
    if ("error" in prepared) {
      record(prepared.outcome);
      return prepared.error;
    }
    return this.approveAndSend({ prepared, name, args, context, record });
  }

  /** Past its checks: asked about where the policy says (when it says approve), then sent only on a yes. */
  private async approveAndSend(sending: Sending): Promise<ToolResult> {
    const { prepared, name, args, context, record } = sending;
    if (resolvePolicy(prepared.tool, this.policies).decision !== "approve") return this.admitAndSend(sending);
    const { answer, by, busy } = await askApproval({
      route: context.approvalRoute ?? routeOf({ routes: this.options.approvals?.routes, tool: prepared.tool }),
      queue: this.options.approvals?.queue,
      request: this.approvalRequest(prepared, args),
      context,
    });
    if (answer !== "accept") {
      record("not_approved", { ...prepared, ...(by ? { declinedBy: by } : {}) });
      return errorResult(NOT_APPROVED[answer](name, busy));
    }
    // Whoever approved in the console is named on the call's audit line.
    const approved: Recorder = by ? (outcome, extra = {}) => record(outcome, { ...extra, approvedBy: by }) : record;
    return this.admitAndSend({ ...sending, record: approved });
  }

  /**
   * A call from a client that answers later instead of being kept waiting (MCP 2026-07-28's input_required, any
   * stateless HTTP): as callTool, except that a call needing approval ends here with what to ask and a signed
   * state bound to the tool, the arguments and the caller; nothing is sent until resumeCall gets it back approved.
   */
  async beginCall({ name, args, principal, context = {} }: StartCall): Promise<BegunCall> {
    const record = this.recorder({ name, args, context });
    const denied = this.denied(name, record);
    if (denied) return { result: denied };
    const prepared = await this.prepare(name, args, context);
    if ("error" in prepared) {
      record(prepared.outcome);
      return { result: prepared.error };
    }
    // Routed to the console, the call is held open until an admin decides (README "Approvals"): the answer is not
    // the client's to bring back, and holding it needs no state to carry.
    const route = routeOf({ routes: this.options.approvals?.routes, tool: prepared.tool });
    if (route !== "client" && this.options.approvals)
      return { result: await this.approveAndSend({ prepared, name, args, context, record }) };
    if (resolvePolicy(prepared.tool, this.policies).decision === "approve") {
      const { state, claims } = this.requestStates().issue({
        tool: prepared.tool.name,
        digest: argumentDigest(args),
        principal: principal ?? null,
      });
      return { approval: { questionId: claims.questionId, request: this.approvalRequest(prepared, args), state } };
    }
    return { result: await this.admitAndSend({ prepared, name, args, context, record }) };
  }

  /**
   * The call a state from beginCall stands for, resumed on any engine with the same key once the person has
   * answered: the state is checked (signature, expiry, same tool and caller), the arguments validated again and
   * checked against it, the state used up, and only then, if the answer is yes, the request sent.
   */
  async resumeCall({ name, args, principal, state, answer, context = {} }: ResumeCall): Promise<ToolResult> {
    const record = this.recorder({ name, args, context });
    const refuse = (refusal: Parameters<typeof stateRefusalMessage>[0]["refusal"]): ToolResult => {
      record("state_refused");
      return errorResult(stateRefusalMessage({ refusal, tool: name, lifetimeMs: this.approvalTimeoutMs() }));
    };
    const states = this.requestStates();
    const opened = states.open(state);
    if ("refused" in opened) return refuse(opened.refused);
    const { claims } = opened;
    const call = { tool: name, principal: principal ?? null };
    const early = states.rebound(claims, { ...call, digest: claims.digest });
    if (early) return refuse(early);
    const denied = this.denied(name, record);
    if (denied) return denied;
    const checked = this.check(name, args, context);
    if ("error" in checked) {
      record(checked.outcome);
      return checked.error;
    }
    const rebound = states.rebound(claims, { ...call, digest: argumentDigest(args) });
    if (rebound) return refuse(rebound);
    const used = await states.consume(claims);
    if (used) return refuse(used);
    const given = typeof answer === "function" ? answer(claims.questionId) : answer;
    if (given !== "accept") {
      record("not_approved");
      return errorResult(NOT_APPROVED[given](name));
    }
    const prepared = await this.build(checked, context);
    if ("error" in prepared) {
      record(prepared.outcome);
      return prepared.error;
    }
    return this.admitAndSend({ prepared, name, args, context, record });
  }

  /** One audit line per call, timed from now. */
  private recorder({ name, args, context }: { name: string; args: unknown; context: CallContext }): Recorder {
    const started = performance.now();
    // Named on the audit line whenever the client sent a valid one, also for calls that stop before a request.
    const traceId = parseTraceparent(context.trace?.traceparent)?.traceId;
    return (outcome, extra = {}) => {
      if (!this.options.audit) return;
      const secrets = [...(extra.secrets ?? []), ...sensitiveValues(args)];
      this.options.audit.write(
        safeRecord(
          {
            time: new Date().toISOString(),
            ...(context.sessionId ? { session: context.sessionId } : {}),
            // Who called (the principal's key, never a token) and under which profile.
            ...(context.caller ? { principal: context.caller.principal } : {}),
            ...(this.options.profile ? { profile: this.options.profile.name } : {}),
            ...(traceId ? { traceId } : {}),
            ...(extra.request && extra.spanId ? { spanId: extra.spanId } : {}),
            tool: name,
            ...(context.script ? { via: context.script.via, script: context.script.digest } : {}),
            ...(extra.request ? { method: extra.request.method, url: extra.request.origin + extra.request.path } : {}),
            // Masked before loggedArguments cuts long values, as the URL is before safeRecord cuts it.
            arguments: loggedArguments(maskValue(args, secrets)),
            ...(extra.status !== undefined ? { status: extra.status } : {}),
            ...(extra.references ? { secrets: extra.references } : {}),
            ...(extra.hidden ? { hiddenCharactersRemoved: extra.hidden } : {}),
            ...(extra.approvedBy ? { approvedBy: extra.approvedBy } : {}),
            ...(extra.declinedBy ? { declinedBy: extra.declinedBy } : {}),
            durationMs: Math.round(performance.now() - started),
            outcome,
          },
          secrets,
        ),
      );
    };
  }

  /** The refusal of a tool the policy denies; undefined for the rest. */
  private denied(name: string, record: Recorder): ToolResult | undefined {
    const tool = this.tools.get(name);
    if (!tool) return undefined;
    const policy = resolvePolicy(tool, this.policies);
    if (policy.decision !== "deny") return undefined;
    record("denied");
    return errorResult(
      `${name} is not allowed on this server (policy ${policy.rule}). Nothing was sent; this is the operator's decision, not something other arguments can change.`,
    );
  }

  /**
   * Past approval: a slot among the calls in flight to the origin, the rate limit, the hook, the request (again
   * once on a 401 with OAuth), audit and masking.
   */
  private async admitAndSend({ prepared: first, name, args, context, record }: Sending): Promise<ToolResult> {
    // A slot first, after approval (a call waiting for a person holds none), then the rate limit: counted when the
    // request really goes, else calls that waited in the queue would arrive together past it.
    const caps = inFlightCaps({ engine: this.options, tool: first.tool, caller: context.caller });
    const { origin } = first.request;
    const principal = context.caller?.principal ?? ANONYMOUS;
    const waited: Admission = await this.gate.acquire({
      origin,
      principal,
      caps,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (!("slot" in waited)) {
      record(waited.refused, first);
      return maskValue(errorResult(refusalMessage({ name, origin, caps, admission: waited })), first.secrets);
    }
    try {
      return await this.rateLimitAndSend({ prepared: first, name, args, context, record });
    } finally {
      waited.slot.release();
    }
  }

  private async rateLimitAndSend(sending: Sending): Promise<ToolResult> {
    const { prepared, name, context, record } = sending;
    const budgets = this.budgetKeys(prepared.tool, context);
    const keys = [...this.rateLimitKeys(prepared.tool), ...budgets.keys];
    const describe = (key: string): string =>
      budgets.shown.get(key) ?? `the rate limit for ${key.replace(/^source:$/, "this API")}`;
    // A place under the limits, counted from when the request leaves (./limits/rate-limit.ts says why and proves it).
    const admission = await this.limiter.reserve({ keys });
    if (!admission.ok && "unavailable" in admission) {
      // A shared limit nobody can check is not a limit: send nothing (--state-fail open chooses otherwise).
      record("rate_limited", prepared);
      return errorResult(`${name}: ${admission.unavailable}; nothing was sent. Try again later.`);
    }
    if (!admission.ok) {
      record("rate_limited", prepared);
      return errorResult(
        `${name} was not sent: ${describe(admission.key)} is reached. Try again in ${formatDuration(admission.retryAfterMs)}.`,
      );
    }
    const gate = new RateLimitGate({ limiter: this.limiter, keys, first: admission.permit, describe });
    try {
      return await this.sendAdmitted({ ...sending, gate });
    } finally {
      gate.close();
    }
  }

  private async sendAdmitted({
    prepared: first,
    name,
    args,
    context,
    record,
    gate,
  }: Sending & { gate: RateLimitGate }): Promise<ToolResult> {
    let prepared = first;
    const secrets = [...prepared.secrets];
    // Validated by now: an object of the tool's input schema.
    const validArgs = args as Record<string, unknown>;
    prepared = await this.withHook(prepared, validArgs);
    let outcome = await this.send(prepared, context, gate);
    if (outcome.response?.status === 401 && prepared.invalidate) {
      // A cached OAuth token may have been revoked: fetch a new one and try once more (admitted again: the API
      // counts this request too).
      prepared.invalidate();
      const again = await this.prepare(name, args, context);
      if ("error" in again) {
        record(again.outcome, { ...prepared, secrets });
        return maskValue(again.error, secrets);
      }
      prepared = await this.withHook(again, validArgs);
      secrets.push(...again.secrets);
      outcome = await this.send(prepared, context, gate);
    }
    const references = [...new Set([...(first.references ?? []), ...(prepared.references ?? [])])];
    record(outcome.outcome, {
      request: prepared.request,
      secrets,
      ...(references.length > 0 ? { references } : {}),
      ...(prepared.spanId ? { spanId: prepared.spanId } : {}),
      ...(outcome.response ? { status: outcome.response.status } : {}),
      ...(outcome.hidden ? { hidden: outcome.hidden } : {}),
    });
    const result =
      (await this.options.hooks?.afterResult?.({
        tool: prepared.tool,
        arguments: validArgs,
        result: outcome.result,
      })) ?? outcome.result;
    // Whatever the result says (URLs in messages, echoed requests, resource URIs), no credential shows in it.
    return maskValue(result, secrets);
  }

  private async withHook(prepared: Prepared, args: Record<string, unknown>): Promise<Prepared> {
    const changed = await this.options.hooks?.beforeRequest?.({
      tool: prepared.tool,
      arguments: args,
      request: prepared.request,
    });
    return changed ? { ...prepared, request: changed } : prepared;
  }

  private async send(
    { tool, request, secrets }: Prepared,
    context: CallContext,
    gate: RateLimitGate,
  ): Promise<{ result: ToolResult; outcome: AuditOutcome; response?: UpstreamResponse; hidden?: number }> {
    let response: UpstreamResponse;
    const masker = new Masker(secrets);
    const maxBytes = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // Arguments can make a URL megabytes long: messages show it masked, then cut.
    const shownUrl = (url: string): string => {
      const clipped = masker.clip(url, SHOWN_URL_CHARS);
      return clipped.cut ? `${clipped.text}…` : clipped.text;
    };
    try {
      response = await send(request, {
        dispatcher: this.options.dispatcher ?? sharedDispatcher(),
        timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        // Read past the limit by the longest form of a secret, so one across the limit is masked whole.
        maxResponseBytes: maxBytes,
        lookaheadBytes: masker.lookaheadBytes,
        shownUrl,
        gate,
        ...(context.signal ? { signal: context.signal } : {}),
        ...(this.options.retryDelaysMs ? { retryDelaysMs: this.options.retryDelaysMs } : {}),
      });
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      const outcome: AuditOutcome =
        error.kind === "timeout"
          ? "timeout"
          : error.kind === "cancelled"
            ? "cancelled"
            : error.kind === "not_sent"
              ? "rate_limited"
              : "network_error";
      return { result: errorResult(`${error.message}. ${FAILURE_HINTS[error.kind]}`), outcome };
    }
    // An upstream may echo what it was sent: the body is masked before anything parses, encodes or cuts it.
    response = maskResponse({ response, masker, maxBytes });
    const text = this.responseText(tool);
    const result = mapResponse({
      response,
      tool,
      validator: this.validator,
      outputValidation: this.outputValidation,
      method: request.method,
      maxBytes,
      shownUrl,
      text,
    });
    const success = response.status >= 200 && response.status < 300;
    const outcome: AuditOutcome = !success ? "http_error" : result.isError ? "output_mismatch" : "ok";
    return { result, outcome, response, hidden: text.removed };
  }

  /** How the API's text reaches the model for this tool: its source's setting, or the server's (default strip). */
  private responseText(tool: Tool): ResponseText {
    const { responseText, responseTextSources, markResponseText } = this.options;
    const mode = responseTextSources?.[tool.source || "default"] ?? responseText ?? "strip";
    return new ResponseText({ mode, mark: markResponseText === true });
  }

  /** What the person is shown: the same whether the client waits for the answer or brings it back later. */
  private approvalRequest({ tool, request, secrets }: Prepared, args: unknown): ApprovalRequest {
    return {
      tool: tool.name,
      title: tool.title,
      method: request.method,
      url: loggedUrl(maskText(request.origin + request.path, secrets)),
      arguments: maskValue((args ?? {}) as Record<string, unknown>, secrets),
      effect: tool.effect,
      timeoutMs: this.approvalTimeoutMs(),
    };
  }

  private approvalTimeoutMs(): number {
    return this.options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  private requestStates(): RequestStates {
    this.states ??= this.options.requestStates ?? new RequestStates({ lifetimeMs: this.approvalTimeoutMs() });
    return this.states;
  }

  /** The profile's budgets for this caller (no caller: stdio or no endpoint auth, counted as one). */
  private budgetKeys(tool: Tool, context: CallContext): { keys: RateLimitKey[]; shown: Map<string, string> } {
    const budgets = this.options.profile?.budgets;
    if (!budgets) return { keys: [], shown: new Map() };
    return profileBudgetKeys({ tool, budgets, principal: context.caller?.principal ?? "" });
  }

  /** Where the tool's variables are read: of a registry source's, only those assigned to its namespace. */
  private environmentOf(tool: Tool): Environment {
    const env = this.options.env ?? process.env;
    const assignments = this.options.secretAssignments;
    return assignments ? assignments.scope(tool.source).environment(env) : env;
  }

  /** Why a registry source's request may not carry its credentials to `url` (not an origin assigned), if so. */
  private offOrigin({ tool, url }: { tool: Tool; url: string }): string | undefined {
    const assignments = this.options.secretAssignments;
    if (!assignments) return undefined;
    const scope = assignments.scope(tool.source);
    const { carries } = toolSecrets({ tool, credentials: this.options.catalog.credentials, assignments });
    return carries && !scope.allowsOrigin(url) ? scope.offOrigin(url) : undefined;
  }

  private rateLimitKeys(tool: Tool): RateLimitKey[] {
    const keys: RateLimitKey[] = [];
    const toolLimit = this.options.rateLimits?.tools?.[tool.name] ?? tool.operation.rateLimit;
    if (toolLimit) keys.push({ key: toolKey(tool.name), limit: toolLimit });
    const source = this.options.catalog.sources.find((s) => s.id === tool.source);
    const sourceLimit = this.options.rateLimits?.sources?.[tool.source || "default"] ?? source?.rateLimit;
    if (sourceLimit) keys.push({ key: sourceKey(tool.source), limit: sourceLimit });
    return keys;
  }
}

/** The principal of calls without a verified caller (stdio, an open endpoint): one, whoever they are. */
const ANONYMOUS = "\u0000anonymous";

const NOT_APPROVED: Record<Exclude<ApprovalAnswer, "accept">, (tool: string, busy?: string) => string> = {
  decline: (tool) => `${tool} was not sent: the person reviewing it declined.`,
  cancel: (tool) => `${tool} was not sent: the person reviewing it cancelled the approval.`,
  timeout: (tool) => `${tool} was not sent: nobody approved it in time.`,
  unsupported: (tool) =>
    `${tool} needs a person's approval before each call, and this client cannot ask for it (no MCP elicitation), so nothing was sent. An operator can allow it with --policy ${tool}=allow.`,
  busy: (tool, busy) =>
    `${tool} was not sent: too many calls are waiting for a person's approval in the console already (${busy ?? "the queue is full"}). Try again once some are decided.`,
};

const FAILURE_HINTS: Record<UpstreamFailure["kind"], string> = {
  timeout: "The API did not answer in time; it may be slow or down. Try again later, or ask for less.",
  network: "The API could not be reached; it may be down. Trying again later may work.",
  cancelled: "The call was cancelled before the API answered; it may or may not have taken effect.",
  redirect: "The API sent the request elsewhere, and that was not followed.",
  invalid: "Nothing was sent; the request as configured cannot be sent over HTTP.",
  not_sent: "This server's rate limit for the API held it back; nothing more was sent.",
};

/**
 * The request with the client's trace context carried on (trace-context.ts). A `traceparent` or `tracestate` the
 * request already has (the operation's own header parameter, a static header, a credential) is what the document
 * and the operator asked to send, so it is kept and none of ours is added: the client's trace is observability,
 * theirs is the request's content, and the two headers only make sense as a pair from one source.
 */
function withTrace(
  request: PreparedRequest,
  incoming: CallContext["trace"],
): { request: PreparedRequest; spanId?: string } {
  if (!incoming || "traceparent" in request.headers || "tracestate" in request.headers) return { request };
  const outgoing = childTrace(incoming);
  if (!outgoing) return { request };
  return { request: { ...request, headers: { ...request.headers, ...outgoing.headers } }, spanId: outgoing.spanId };
}

/**
 * Static headers may name `${VAR}`s; one whose variable is unset is left out rather than sent with a placeholder.
 * `${file:…}` and `${cmd:…}` in them (or in the variables' values) are read now. Also returns the values substituted,
 * which are masked like credentials, and the references used.
 */
async function expandStaticHeaders({
  headers,
  env,
  secretSources,
  dryRun,
}: {
  headers: Record<string, string>;
  env: Environment;
  secretSources: SecretSources;
  /** Credential processes are not run: a placeholder stands for what they would give. */
  dryRun: boolean;
}): Promise<{ headers: Record<string, string>; values: string[]; references: string[] }> {
  const expanded: Record<string, string> = {};
  const values: string[] = [];
  const references: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    let missing = false;
    const text = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
      const found = env[variable];
      if (found === undefined) missing = true;
      else values.push(found);
      return found ?? "";
    });
    if (missing) continue;
    const resolved = await secretSources.expand(text, { dryRun });
    values.push(...resolved.values);
    references.push(...resolved.references);
    expanded[name] = resolved.value;
  }
  return { headers: expanded, values, references };
}
