// The runtime engine: validate the arguments → build the request exactly as the operation says → add
// credentials → send → map and check the response. The one implementation `serve`, `call` and generated servers
// share; it reads only the catalog.

import { OpenApiMcpError } from "../catalog/errors.js";
import { type ListedTool, Listing } from "../catalog/listing.js";
import type { Catalog, Tool } from "../catalog/types.js";
import { applyCredentials, type Environment } from "./credentials.js";
import { type Dispatcher, send, sharedDispatcher, UpstreamFailure } from "./http.js";
import { buildRequest } from "./request.js";
import { errorResult, mapResponse } from "./response.js";
import { maskValue } from "./secrets.js";
import { ArgumentError, type CallContext, type OutputValidation, type PreparedRequest, type ToolProvider, type ToolResult } from "./types.js";
import { placeOf, Validator } from "./validate.js";

export interface EngineOptions {
  catalog: Catalog;
  /** Milliseconds for a whole upstream call, redirects and retries included (default 60 s). */
  timeoutMs?: number;
  /** Bodies longer than this are cut (text) or refused (JSON, binary) (default 1 MiB). */
  maxResponseBytes?: number;
  outputValidation?: OutputValidation;
  /** Where credentials and `${VAR}` in static headers come from (default: the process environment). */
  env?: Environment;
  dispatcher?: Dispatcher;
  retryDelaysMs?: number[];
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export class Engine implements ToolProvider {
  private readonly tools: Map<string, Tool>;
  private readonly validator: Validator;
  private readonly outputValidation: OutputValidation;
  private listed: ListedTool[] | undefined;

  constructor(private readonly options: EngineOptions) {
    this.tools = new Map(options.catalog.tools.map((tool) => [tool.name, tool]));
    this.validator = new Validator({ definitions: options.catalog.definitions });
    this.outputValidation = options.outputValidation ?? "strict";
  }

  /** The tools/list entries; output schemas are advertised only when responses are held to them. */
  listTools(): ListedTool[] {
    if (!this.listed) {
      const listing = new Listing(this.options.catalog, { outputSchema: this.outputValidation === "strict" });
      this.listed = this.options.catalog.tools.map((tool) => listing.entry(tool));
    }
    return this.listed;
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  /**
   * The request a call would send, credentials included, with the secret values it carries; or the error result
   * that stops it first.
   */
  prepare(name: string, args: unknown): { tool: Tool; request: PreparedRequest; secrets: string[] } | { error: ToolResult } {
    const tool = this.tools.get(name);
    if (!tool) return { error: errorResult(`There is no tool named '${name}'.`) };
    const given = args ?? {};
    const mismatches = this.validator.arguments(tool, given);
    if (mismatches.length > 0) {
      const listed = mismatches.map((m) => `${placeOf(m.pointer)} ${m.message}`).join("; ");
      return { error: errorResult(`Invalid arguments for ${name}: ${listed}. Nothing was sent; correct the arguments and call again (the tool's input schema lists what it takes).`) };
    }
    try {
      const env = this.options.env ?? process.env;
      // Only the source's own static headers may name variables: a `${VAR}` in an argument stays literal text.
      const operation = tool.operation.headers ? { ...tool.operation, headers: expandStaticHeaders(tool.operation.headers, env) } : tool.operation;
      const built = buildRequest({ operation, args: given as Record<string, unknown> });
      const { request, secrets } = applyCredentials({ request: built, security: tool.operation.security, credentials: this.options.catalog.credentials, env });
      return { tool, request, secrets };
    } catch (error) {
      if (error instanceof ArgumentError) return { error: errorResult(`Invalid arguments for ${name}: ${placeOf(error.pointer)}: ${error.message}. Nothing was sent.`) };
      if (error instanceof OpenApiMcpError) return { error: errorResult(`${name} cannot be called: ${error.message}`) };
      throw error;
    }
  }

  async callTool(name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const prepared = this.prepare(name, args);
    if ("error" in prepared) return prepared.error;
    // Whatever the result says (URLs in messages, echoed requests, resource URIs), no credential shows in it.
    return maskValue(await this.send(prepared, context), prepared.secrets);
  }

  private async send({ tool, request }: { tool: Tool; request: PreparedRequest }, context: CallContext): Promise<ToolResult> {
    try {
      const response = await send(request, {
        dispatcher: this.options.dispatcher ?? sharedDispatcher(),
        timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxResponseBytes: this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        ...(context.signal ? { signal: context.signal } : {}),
        ...(this.options.retryDelaysMs ? { retryDelaysMs: this.options.retryDelaysMs } : {}),
      });
      return mapResponse({ response, tool, validator: this.validator, outputValidation: this.outputValidation, method: request.method });
    } catch (error) {
      if (error instanceof UpstreamFailure) return errorResult(`${error.message}. ${FAILURE_HINTS[error.kind]}`);
      throw error;
    }
  }
}

const FAILURE_HINTS: Record<UpstreamFailure["kind"], string> = {
  timeout: "The API did not answer in time; it may be slow or down. Try again later, or ask for less.",
  network: "The API could not be reached; it may be down. Trying again later may work.",
  cancelled: "The call was cancelled before the API answered; it may or may not have taken effect.",
  redirect: "The API sent the request elsewhere, and that was not followed.",
  invalid: "Nothing was sent; the request as configured cannot be sent over HTTP.",
};

/** Static headers may name `${VAR}`s; one whose variable is unset is left out rather than sent with a placeholder. */
function expandStaticHeaders(headers: Record<string, string>, env: Environment): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    let missing = false;
    const text = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
      const found = env[variable];
      if (found === undefined) missing = true;
      return found ?? "";
    });
    if (!missing) expanded[name] = text;
  }
  return expanded;
}
