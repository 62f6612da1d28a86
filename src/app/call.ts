// One tool call from the command line: the request that is (or would be) sent, with every configured secret
// masked, then the result exactly as an agent would receive it. What `openapi-mcp call` does.

import { UserError } from "../catalog/errors.js";
import { credentialVariables } from "../catalog/security.js";
import type { Catalog } from "../catalog/types.js";
import type { Environment } from "../runtime/credentials.js";
import type { Engine } from "../runtime/engine.js";
import { nearMatches } from "../runtime/policy.js";
import { MASK, Masker, maskText, maskValue } from "../runtime/secrets.js";
import type { PreparedRequest, ToolResult } from "../runtime/types.js";
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

const BODY_SHOWN = 4_000;

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

/** Every configured credential value: masked wherever it would show (here and in the console's answers). */
export function secretsOf(catalog: Catalog, env: Environment): string[] {
  const values = Object.values(catalog.credentials).flatMap((credential) =>
    credentialVariables(credential).map((name) => env[name]),
  );
  return values.filter((v): v is string => typeof v === "string" && v.length > 0);
}

export function describeRequest(request: PreparedRequest, secrets: string[], placeholders: string[] = []): string {
  let target = `${request.origin}${request.path}`;
  // A placeholder in the query or a cookie was percent-encoded like a value; it reads better as written.
  for (const placeholder of placeholders) target = target.replaceAll(encodeURIComponent(placeholder), placeholder);
  const lines = [`${request.method} ${target}`];
  for (const [name, value] of Object.entries(request.headers)) {
    const [scheme = "", ...rest] = value.split(" ");
    // Authorization carries credentials even when its value is derived (basic = base64 of user:password); a
    // placeholder for an unset one is no secret.
    const shown =
      name !== "authorization" ? value : placeholders.includes(rest.join(" ")) ? value : `${scheme} ${MASK}`;
    lines.push(`${name}: ${placeholders.reduce((text, p) => text.replaceAll(encodeURIComponent(p), p), shown)}`);
  }
  if (request.body && request.body.length > 0) {
    const text = Buffer.from(request.body).toString("utf8");
    // Masked before it is cut, so the cut cannot fall inside a secret.
    const shown = new Masker(secrets).clip(text, BODY_SHOWN);
    lines.push("", shown.cut ? `${shown.text}… (${request.body.length} bytes)` : shown.text);
  }
  return maskText(lines.join("\n"), secrets);
}
