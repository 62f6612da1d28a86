// The runtime engine: the one implementation `serve`, `call` and generated servers share; it reads only the catalog.
// A call runs the pipeline of engine/stages.ts (policy → check → credentials → approval → limits → send →
// response, audited); this class holds what the stages share and the views of it a profile or a reload serves.

import { type ListedTool, Listing } from "../catalog/listing.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Catalog, Tool } from "../catalog/types.js";
import { type InFlightCaps, InFlightGate } from "./limits/in-flight.js";
import { inFlightCaps } from "./limits/in-flight-caps.js";
import { TokenProvider } from "./credentials/oauth.js";
import { DEFAULT_POLICIES, type Policies, parsePolicies, type Resolved } from "./approvals/policy.js";
import { RateLimiter } from "./limits/rate-limit.js";
import type { BegunCall, CallContext, Caller, ResumeCall, StartCall, ToolResult } from "./types.js";
import { Validator } from "./checks/validate.js";
import type { UserCredentialMap } from "./credentials/user-credentials.js";
import { RequestStates } from "./approvals/approval-states.js";
import type { CallerInFlight, EngineOptions, EngineProfile, Shared } from "./engine-options.js";
import type { Prepared, Stopped } from "./engine/call.js";
import { checkCall, unknownTool } from "./engine/check.js";
import { type PrepareContext, prepareRequest } from "./engine/credentials.js";
import { approvalTimeoutMs, type EngineParts, policyResolver } from "./engine/parts.js";
import { ProviderBase } from "./engine/provider-base.js";
import { callPipeline, type Pipeline } from "./engine/stages.js";
// Generated projects' src/custom/hooks.ts written before issue 25 import EngineHooks from here: kept as a public entry.
export type { EngineHooks } from "./engine-options.js";

export class Engine extends ProviderBase {
  private readonly parts: EngineParts;
  private readonly run: Pipeline;
  private listed: ListedTool[] | undefined;
  private states: RequestStates | undefined;

  constructor(
    private readonly options: EngineOptions,
    shared?: Shared,
  ) {
    super();
    const policies = options.policies ?? DEFAULT_POLICIES;
    this.parts = {
      options,
      tools: new Map(options.catalog.tools.map((tool) => [tool.name, tool])),
      validator: shared?.validator ?? new Validator({ definitions: options.catalog.definitions }),
      outputValidation: options.outputValidation ?? "strict",
      policies,
      policyOf: policyResolver(policies),
      limiter: shared?.limiter ?? options.limiter ?? new RateLimiter(options.clock ? { clock: options.clock } : {}),
      gate: shared?.gate ?? new InFlightGate(),
      tokens:
        shared?.tokens ??
        options.tokens ??
        new TokenProvider({
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
          ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        }),
      requestStates: () => this.requestStates(),
    };
    this.run = callPipeline(this.parts);
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
      this.parts.policies,
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
      {
        validator: this.parts.validator,
        limiter: this.parts.limiter,
        gate: this.parts.gate,
        tokens: this.parts.tokens,
      },
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
        limiter: this.parts.limiter,
        gate: this.parts.gate,
        tokens: this.parts.tokens,
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

  /** The tools/list entries: denied tools are left out (unless refused instead); output schemas only when held to. */
  listTools(): ListedTool[] {
    if (!this.listed) {
      const listing = new Listing(this.options.catalog, { outputSchema: this.parts.outputValidation === "strict" });
      this.listed = this.options.catalog.tools.filter((tool) => this.isListed(tool)).map((tool) => listing.entry(tool));
    }
    return this.listed;
  }

  /**
   * A tool's policy decision and the rule that made it, denied tools included (the console shows every tool with
   * its policy); undefined for a tool this engine does not have.
   */
  policyOf(name: string): Resolved | undefined {
    const tool = this.parts.tools.get(name);
    return tool ? this.parts.policyOf(tool) : undefined;
  }

  /** A hidden (denied) tool is as unknown to clients as one that does not exist. */
  hasTool(name: string): boolean {
    const tool = this.parts.tools.get(name);
    return tool !== undefined && this.isListed(tool);
  }

  /** Denied tools are hidden unless the deny mode is `refuse` (policy.ts's isListed, with the decision kept). */
  private isListed(tool: Tool): boolean {
    return this.parts.policies.denyMode === "refuse" || this.parts.policyOf(tool).decision !== "deny";
  }

  /**
   * The request a call would send, credentials included, with the secret values it carries; or the error result
   * that stops it before anything is sent. No policy, approval or limit applies: nothing is sent (`call --dry-run`).
   */
  async prepare(name: string, args: unknown, context: PrepareContext = {}): Promise<Prepared | Stopped> {
    const tool = this.parts.tools.get(name);
    if (!tool) return unknownTool(name);
    const dryRun = context.dryRun === true;
    const checked = checkCall({ parts: this.parts, name, found: { tool }, args, dryRun });
    if ("error" in checked) return checked;
    return prepareRequest({ parts: this.parts, call: { tool, given: checked.given }, context });
  }

  async callTool(name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    return (await this.run({ kind: "call", name, args, context })).result;
  }

  /**
   * A call from a client that answers later instead of being kept waiting (MCP 2026-07-28's input_required, any
   * stateless HTTP): as callTool, except that a call needing approval ends here with what to ask and a signed
   * state bound to the tool, the arguments and the caller; nothing is sent until resumeCall gets it back approved.
   */
  override async beginCall({ name, args, principal, context = {} }: StartCall): Promise<BegunCall> {
    const ran = await this.run({ kind: "begin", name, args, principal, context });
    return ran.kind === "approval" ? { approval: ran.approval } : { result: ran.result };
  }

  /**
   * The call a state from beginCall stands for, resumed on any engine with the same key once the person has
   * answered: the state is checked (signature, expiry, same tool and caller), the arguments validated and checked
   * against it, the state used up, and only then, if the answer is yes, the request sent.
   */
  override async resumeCall({ name, args, principal, state, answer, context = {} }: ResumeCall): Promise<ToolResult> {
    return (await this.run({ kind: "resume", name, args, principal, state, answer, context })).result;
  }

  private requestStates(): RequestStates {
    this.states ??= this.options.requestStates ?? new RequestStates({ lifetimeMs: approvalTimeoutMs(this.options) });
    return this.states;
  }
}
