// Code mode (`--mode code`): the model finds tools (search_tools, dynamic mode's own), reads them as TypeScript
// (describe_tools) and writes a short script against them (execute), run in a WebAssembly sandbox on the server.
// Each `api.<tool>(args)` the script makes is the engine's call under the tool's own name and the caller's context:
// validation, credentials, policy and approval, rate limits, HTTPS, output checks, masking and audit are a direct
// call's, and only the script's value, its logs and the list of calls come back into the model's context.

import type { Catalog, Tool } from "../../catalog/types.js";
import { callKey, type KeptCall, StoppedRuns } from "./code-approval.js";
import { describeTools, MAX_DESCRIBED_TOOLS } from "./code-describe.js";
import { answerOf, EXECUTE, outcomeResult, type RunScript, scriptOf, scriptOrigin } from "./code-execute.js";
import type { ScriptLimits, ApiAnswer, ScriptQueueLimits } from "./sandbox/script.js";
import { ScriptSecrets } from "./code-secrets.js";
import { codeTools, DESCRIBE_TOOLS } from "./code-tools.js";
import { type CallerInFlightCaps, type ScriptSettings, scriptSettings, scriptTurn } from "./code-turn.js";
import { DynamicProvider, SEARCH_TOOLS } from "./dynamic.js";
import { clipText, QUOTED_NAME_CHARS } from "../checks/bounds.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../options.js";
import { nearMatches } from "../approvals/policy.js";
import { errorResult } from "../http/response.js";
import { runScript as sandboxRun } from "./sandbox/run-script.js";
import { ProviderBase } from "../engine/provider-base.js";
import type {
  BegunCall,
  CallContext,
  ResumeCall,
  ServedProvider,
  ServedTool,
  StartCall,
  ToolResult,
} from "../types.js";

/** The engine, as code mode calls it. */
type ScriptEngine = ServedProvider & {
  /** The caller's in-flight limits: each execute takes one of its slots while it runs. */
  callerInFlight: CallerInFlightCaps;
};
/** How one api call is made: the engine's callTool, beginCall or resumeCall, as the round needs. */
type Relay = (call: { tool: string; args: unknown; index: number }) => Promise<ApiAnswer>;

const WAITING = "Waiting for a person's approval; the script stops here and runs again once they answer.";
const NEXT = `${DESCRIBE_TOOLS} gives their TypeScript declarations; ${EXECUTE} runs a script calling api.<name>(args).`;

export class CodeProvider extends ProviderBase {
  private readonly visible: Map<string, Tool>;
  private readonly listed: ServedTool[];
  private readonly search: DynamicProvider;
  private readonly stopped: StoppedRuns;
  private readonly run: RunScript;
  private readonly limits: Partial<ScriptLimits>;
  private readonly queue: ScriptQueueLimits;

  constructor(
    private readonly options: {
      engine: ScriptEngine;
      catalog: Catalog;
      /** --script-timeout, --script-max-queued and the rest; the sandbox's defaults where left out. */
      limits?: Partial<ScriptSettings>;
      approvalTimeoutMs?: number;
      /** The sandbox (tests may give another). */
      runScript?: RunScript;
    },
  ) {
    super();
    const tools = options.catalog.tools.filter((tool) => options.engine.hasTool(tool.name));
    this.visible = new Map(tools.map((tool) => [tool.name, tool]));
    this.listed = codeTools(tools);
    this.search = new DynamicProvider({ engine: options.engine, catalog: options.catalog });
    this.stopped = new StoppedRuns(options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS);
    this.run = options.runScript ?? sandboxRun;
    ({ limits: this.limits, queue: this.queue } = scriptSettings(options.limits));
  }

  listTools(): ServedTool[] {
    return this.listed;
  }

  hasTool(name: string): boolean {
    return name === SEARCH_TOOLS || name === DESCRIBE_TOOLS || name === EXECUTE;
  }

  async callTool(name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const routed = this.route(name, args);
    if ("result" in routed) return routed.result;
    const script = scriptOrigin(routed.code);
    const secrets = new ScriptSecrets();
    const scripted = { ...context, script, carried: carriedTo(secrets.add, context) };
    const relay: Relay = async ({ tool, args }) =>
      answerOf({ result: await this.options.engine.callTool(tool, args, scripted), tool: this.visible.get(tool) });
    return outcomeResult(secrets.masked(await this.execute({ code: routed.code, relay, context })));
  }

  /** As callTool, except that a script's call needing approval stops the run and hands out what to ask. */
  override async beginCall({ name, args, principal, context = {} }: StartCall): Promise<BegunCall> {
    const routed = this.route(name, args);
    if ("result" in routed) return routed;
    const script = scriptOrigin(routed.code);
    const secrets = new ScriptSecrets();
    const stop = new AbortController();
    const calls: Array<KeptCall | undefined> = [];
    let asked: BegunCall | undefined;
    let begunCalls = 0;
    const relay: Relay = async ({ tool, args, index }) => {
      // Once a question is out the run is ending: a script that caught the refusal sends nothing more.
      if (asked) return { ok: false, message: WAITING };
      begunCalls++;
      // Kept with the answer: a resumed run that answers from it masks with them too.
      const carried: string[] = [];
      const begun = await this.options.engine.beginCall({
        name: tool,
        args,
        ...(principal !== undefined ? { principal } : {}),
        context: { ...context, script, carried: carriedTo((values) => carried.push(...values), context) },
      });
      secrets.add(carried);
      if ("approval" in begun) {
        if (asked) return { ok: false, message: WAITING };
        const run = { principal: principal ?? null, script: script.digest, calls, waiting: index, begun: begunCalls };
        asked = { approval: { ...begun.approval, state: this.stopped.keep({ state: begun.approval.state, run }) } };
        stop.abort();
        return { ok: false, message: WAITING };
      }
      const answer = answerOf({ result: begun.result, tool: this.visible.get(tool) });
      calls[index] = { ...callKey({ tool, args }), answer, carried };
      return answer;
    };
    const outcome = await this.execute({ code: routed.code, relay, context, stop: stop.signal });
    return asked ?? { result: outcomeResult(secrets.masked(outcome)) };
  }

  /** The script again with the person's answer: earlier calls answered as before, the approved one resumed. */
  override async resumeCall({ name, args, principal, state, answer, context = {} }: ResumeCall): Promise<ToolResult> {
    const routed = this.route(name, args);
    if ("result" in routed) return routed.result;
    const script = scriptOrigin(routed.code);
    const taken = this.stopped.take({ state, principal: principal ?? null, script: script.digest });
    if ("refused" in taken) return errorResult(taken.refused);
    const { engineState, calls, waiting } = taken;
    const secrets = new ScriptSecrets();
    const scripted = { ...context, script, carried: carriedTo(secrets.add, context) };
    const relay: Relay = async ({ tool, args, index }) => {
      const known = calls[index];
      if (known) {
        const again = callKey({ tool, args });
        if (again.tool === known.tool && again.digest === known.digest) {
          secrets.add(known.carried);
          return known.answer;
        }
        return {
          ok: false,
          message: `This call (${tool}) is not the one the script made here before approval was asked (${known.tool}): a resumed script must make the same calls. Nothing was sent.`,
        };
      }
      const result =
        index === waiting
          ? await this.options.engine.resumeCall({
              name: tool,
              args,
              ...(principal !== undefined ? { principal } : {}),
              state: engineState,
              answer,
              context: scripted,
            })
          : await this.options.engine.callTool(tool, args, scripted);
      return answerOf({ result, tool: this.visible.get(tool) });
    };
    return outcomeResult(secrets.masked(await this.execute({ code: routed.code, relay, context })));
  }

  /** The script run in the sandbox, each api call numbered in the order the script made it. */
  private execute({
    code,
    relay,
    context,
    stop,
  }: {
    code: string;
    relay: Relay;
    context: CallContext;
    stop?: AbortSignal;
  }): ReturnType<RunScript> {
    let index = 0;
    const signals = [context.signal, stop].filter((s): s is AbortSignal => s !== undefined);
    return this.run({
      code,
      tools: [...this.visible.keys()],
      api: ({ tool, args }) =>
        this.visible.has(tool)
          ? relay({ tool, args, index: index++ })
          : Promise.resolve({ ok: false, message: this.unknown(tool) }),
      limits: this.limits,
      turn: scriptTurn({
        caller: context.caller,
        inFlight: this.options.engine.callerInFlight.bind(this.options.engine),
        queue: this.queue,
      }),
      ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
    });
  }

  /** search_tools and describe_tools answered, or execute's script. */
  private route(name: string, args: unknown): { result: ToolResult } | { code: string } {
    if (typeof (args ?? {}) !== "object" || Array.isArray(args))
      return { result: errorResult(`The arguments for ${name} must be an object.`) };
    const given = (args ?? {}) as Record<string, unknown>;
    if (name === SEARCH_TOOLS) return { result: this.search.search(given, NEXT) };
    if (name === DESCRIBE_TOOLS) return { result: this.describe(given) };
    if (name === EXECUTE) return scriptOf(given);
    return {
      result: errorResult(
        `There is no tool named '${clipText(name, QUOTED_NAME_CHARS)}'; use ${SEARCH_TOOLS}, ${DESCRIBE_TOOLS} and ${EXECUTE}.`,
      ),
    };
  }

  private describe({ names }: Record<string, unknown>): ToolResult {
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === "string"))
      return errorResult(`${DESCRIBE_TOOLS} needs \`names\`: tools' names, as ${SEARCH_TOOLS} gives them.`);
    if (names.length > MAX_DESCRIBED_TOOLS)
      return errorResult(`${DESCRIBE_TOOLS} takes at most ${MAX_DESCRIBED_TOOLS} names at a time.`);
    const unknown = (names as string[]).find((n) => !this.visible.has(n));
    if (unknown !== undefined) return errorResult(this.unknown(unknown));
    const tools = [...new Set(names as string[])].map((n) => this.visible.get(n)!);
    const text = describeTools({ tools, definitions: this.options.catalog.definitions });
    return { content: [{ type: "text", text }] };
  }

  private unknown(name: string): string {
    const near = nearMatches(name, [...this.visible.keys()]);
    const hint = near.length > 0 ? ` Did you mean ${near.map((n) => `'${n}'`).join(", ")}?` : "";
    return `There is no tool named '${clipText(name, QUOTED_NAME_CHARS)}'.${hint} Use ${SEARCH_TOOLS} to find tools by what they do. Nothing was sent.`;
  }
}

/** Each call's secrets to the run's collection, and on to whoever asked for them of the execute itself. */
function carriedTo(
  collect: (secrets: readonly string[]) => void,
  context: CallContext,
): (secrets: readonly string[]) => void {
  return (secrets) => {
    collect(secrets);
    context.carried?.(secrets);
  };
}
