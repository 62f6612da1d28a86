// One tool call from the command line: the request that is (or would be) sent, with every configured secret
// masked, then the result exactly as an agent would receive it. What `openapi-mcp call` does.

import { UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import type { Engine } from "../runtime/engine.js";
import { nearMatches } from "../runtime/approvals/policy.js";
import { describeRequest, secretsOf } from "../runtime/secrets/masked-request.js";
import { maskValue } from "../runtime/secrets/secrets.js";
import type { ToolResult } from "../runtime/types.js";
import { type EngineSetup, type EngineSetupOptions, setUpEngine } from "./setup.js";

export interface CallOptions extends EngineSetupOptions {
  tool: string;
  args?: unknown;
  dryRun?: boolean;
}

export interface CallReport {
  /** The request as text, secrets masked; absent when the call stopped before one was built. */
  request?: string;
  /** Absent on a dry run that built a request. */
  result?: ToolResult;
}

export async function callTool(sources: string | string[], options: CallOptions): Promise<CallReport> {
  // A dry run sends nothing anywhere (the engine's prepare: no OAuth token fetched, no credential process run).
  const setup = await setUpEngine(sources, { ...options, onlyTools: [options.tool] });
  try {
    return await callWith({ setup, options });
  } finally {
    // The --state Redis connection: the call is over.
    await setup.close();
  }
}

async function callWith({ setup, options }: { setup: EngineSetup; options: CallOptions }): Promise<CallReport> {
  const { catalog, engine, env, load } = setup;
  await load.keep();
  const tool = toolNamed({ catalog, engine, given: options.tool });
  // A dry run needs no credentials: where one is not set, the request shows what to set instead.
  const prepared = await engine.prepare(tool, options.args, options.dryRun ? { dryRun: true } : {});
  if ("error" in prepared) return { result: prepared.error };
  // Every configured credential, not only the ones this request carries: none may show.
  const secrets = [...prepared.secrets, ...secretsOf(catalog, env)];
  const request = describeRequest(prepared.request, secrets, prepared.placeholders);
  if (options.dryRun) return { request };
  // From the terminal the person running `call` has approved it by running it.
  const result = await engine.callTool(tool, options.args, { approve: async () => "accept", approvalRoute: "client" });
  return { request, result: maskValue(result, secrets) };
}

/**
 * The tool `given` names: its name, or the operationId it was made from (`repos/get` is the tool `repos_get`), as
 * a person reading the API's documentation would write it. Otherwise an error with the nearest names.
 */
function toolNamed({ catalog, engine, given }: { catalog: Catalog; engine: Engine; given: string }): string {
  if (engine.hasTool(given)) return given;
  const byOperation = catalog.tools.find((t) => t.origin.operationId === given && engine.hasTool(t.name));
  if (byOperation) return byOperation.name;
  const names = engine.listTools().map((t) => t.name);
  const near = nearMatches(given, names);
  const hint = near.length > 0 ? `did you mean ${near.join(", ")}? ` : "";
  throw new UserError({
    code: "E_UNKNOWN_TOOL",
    message: `no tool named '${given}'; ${hint}\`openapi-mcp inspect\` lists all ${names.length}`,
  });
}
