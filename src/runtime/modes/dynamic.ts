// Dynamic mode (`--mode dynamic`): three tools instead of one per operation, so a 1,000-operation API costs the model
// a few hundred bytes up front. search_tools finds tools by what the model wants done, describe_tool gives one tool's
// tools/list entry (its full input schema), call_tool calls it through the engine: validation, credentials, policy
// and approval, rate limits and audit are the engine's, exactly as for a direct call, under the tool's own name.

import { UserError } from "../../catalog/errors.js";
import type { Catalog, Tool } from "../../catalog/types.js";
import { clipText, QUOTED_NAME_CHARS } from "../checks/bounds.js";
import { nearMatches } from "../approvals/policy.js";
import { errorResult } from "../http/response.js";
import { ToolSearch } from "./search/search.js";
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

/**
 * tools: one MCP tool per operation; dynamic: search_tools, describe_tool and call_tool over all of them; code:
 * search_tools, describe_tools and execute, which runs a script calling them (code-mode.ts).
 */
export type ServeMode = "tools" | "dynamic" | "code";
export const SERVE_MODES: readonly ServeMode[] = ["tools", "dynamic", "code"];

/** A mode as given on a command line or in the environment (default: tools). */
export function serveMode(text: string | undefined): ServeMode {
  const mode = text ?? "tools";
  if (!(SERVE_MODES as readonly string[]).includes(mode)) {
    throw new UserError({ code: "E_OPTION", message: `--mode must be ${SERVE_MODES.join(", ")}, not '${mode}'` });
  }
  return mode as ServeMode;
}

export const SEARCH_TOOLS = "search_tools";
export const DESCRIBE_TOOL = "describe_tool";
export const CALL_TOOL = "call_tool";

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;
const SUMMARY_CHARS = 120;
/** A request, not a document: longer queries are refused rather than tokenized. */
const MAX_QUERY_CHARS = 1000;

export class DynamicProvider extends ProviderBase {
  private readonly visible: Tool[];
  private readonly listed: ServedTool[];
  private index: ToolSearch | undefined;
  private entries: Map<string, ServedTool> | undefined;

  /** `engine` serves `catalog`'s tools; only those it lists (not hidden by policy) can be found, described or called. */
  constructor(private readonly options: { engine: ServedProvider; catalog: Catalog }) {
    super();
    this.visible = options.catalog.tools.filter((tool) => options.engine.hasTool(tool.name));
    this.listed = dynamicTools(this.visible);
  }

  listTools(): ServedTool[] {
    return this.listed;
  }

  hasTool(name: string): boolean {
    return name === SEARCH_TOOLS || name === DESCRIBE_TOOL || name === CALL_TOOL;
  }

  async callTool(name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    const routed = this.route(name, args);
    return "result" in routed ? routed.result : this.options.engine.callTool(routed.tool, routed.inner, context);
  }

  /** As callTool: call_tool's inner tool is what the approval state binds. */
  override async beginCall({ name, args, ...rest }: StartCall): Promise<BegunCall> {
    const routed = this.route(name, args);
    return "result" in routed
      ? routed
      : this.options.engine.beginCall({ ...rest, name: routed.tool, args: routed.inner });
  }

  override async resumeCall({ name, args, ...rest }: ResumeCall): Promise<ToolResult> {
    const routed = this.route(name, args);
    return "result" in routed
      ? routed.result
      : this.options.engine.resumeCall({ ...rest, name: routed.tool, args: routed.inner });
  }

  /** search_tools and describe_tool answered, or call_tool's tool and arguments. */
  private route(name: string, args: unknown): { result: ToolResult } | { tool: string; inner: object } {
    if (typeof (args ?? {}) !== "object" || Array.isArray(args))
      return answer(errorResult(`The arguments for ${name} must be an object.`));
    const given = (args ?? {}) as Record<string, unknown>;
    if (name === SEARCH_TOOLS) return answer(this.search(given));
    const tool = given.name;
    if (name !== DESCRIBE_TOOL && name !== CALL_TOOL)
      return answer(
        errorResult(`There is no tool named '${name}'; use ${SEARCH_TOOLS}, ${DESCRIBE_TOOL} and ${CALL_TOOL}.`),
      );
    if (typeof tool !== "string" || tool === "")
      return answer(errorResult(`${name} needs \`name\`: a tool's name, as ${SEARCH_TOOLS} gives it.`));
    const entry = this.options.engine.hasTool(tool) ? this.entry(tool) : undefined;
    if (!entry) return answer(this.unknown(tool));
    if (name === DESCRIBE_TOOL) return answer({ content: [{ type: "text", text: JSON.stringify(entry) }] });
    const inner = given.arguments ?? {};
    if (typeof inner !== "object" || inner === null || Array.isArray(inner)) {
      return answer(
        errorResult(
          `${CALL_TOOL} needs \`arguments\` as an object (the tool's input, as ${DESCRIBE_TOOL} shows). Nothing was sent.`,
        ),
      );
    }
    return { tool, inner };
  }

  /**
   * search_tools' answer; code mode asks with its own closing line (what to do with the names found), over the
   * same index and ranking.
   */
  search(
    args: Record<string, unknown>,
    next = `${DESCRIBE_TOOL} gives a tool's input schema; ${CALL_TOOL} calls it.`,
  ): ToolResult {
    const { query, limit = DEFAULT_LIMIT } = args;
    if (typeof query !== "string" || query.trim() === "")
      return errorResult(`${SEARCH_TOOLS} needs \`query\`: what you want to do, in words.`);
    if (query.length > MAX_QUERY_CHARS)
      return errorResult(
        `${SEARCH_TOOLS}: \`query\` is longer than ${MAX_QUERY_CHARS} characters; say in a few words what you want to do.`,
      );
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      return errorResult(`${SEARCH_TOOLS}: \`limit\` must be a whole number from 1 to ${MAX_LIMIT}.`);
    }
    this.index ??= new ToolSearch({ tools: this.visible, definitions: this.options.catalog.definitions });
    const hits = this.index.search(query, limit);
    if (hits.length === 0)
      return {
        content: [
          {
            type: "text",
            text: `No tool matches "${query}". Try other words: what you want done, or the kind of thing it acts on.`,
          },
        ],
      };
    const lines = hits.map(
      ({ tool }) => `${tool.name}: ${summary(tool)} (${tool.operation.method} ${tool.operation.path})`,
    );
    const text = [`Tools for "${query}", best first:`, ...lines, next].join("\n");
    return { content: [{ type: "text", text }] };
  }

  /** The tool's entry exactly as tools mode lists it. */
  private entry(name: string): ServedTool | undefined {
    this.entries ??= new Map(this.options.engine.listTools().map((entry) => [entry.name, entry]));
    return this.entries.get(name);
  }

  private unknown(name: string): ToolResult {
    const near = nearMatches(
      name,
      this.visible.map((tool) => tool.name),
    );
    const hint = near.length > 0 ? ` Did you mean ${near.map((n) => `'${n}'`).join(", ")}?` : "";
    return errorResult(
      `There is no tool named '${clipText(name, QUOTED_NAME_CHARS)}'.${hint} Use ${SEARCH_TOOLS} to find tools by what they do. Nothing was sent.`,
    );
  }
}

/** A tool's one-line summary: its title, or its description's first line, cut to a line's length. */
function summary(tool: Tool): string {
  const text = (tool.title && tool.title !== tool.name ? tool.title : tool.description.split("\n")[0]) ?? "";
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

/**
 * The three tools, kept small: their whole tools/list is under 1,000 bytes. search_tools and describe_tool only
 * read this server's own data; call_tool's hints are what holds for every tool it can call.
 */
function dynamicTools(tools: Tool[]): ServedTool[] {
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: "object" as const,
    properties,
    required,
  });
  const reading = { readOnlyHint: true, openWorldHint: false };
  return [
    searchTool({ tools, whose: "this server's" }),
    {
      name: DESCRIBE_TOOL,
      title: "Describe tool",
      description: "A tool's description and input schema.",
      inputSchema: object({ name: { type: "string" } }, ["name"]),
      annotations: reading,
    },
    {
      name: CALL_TOOL,
      title: "Call tool",
      description: "Call a tool with arguments matching its input schema.",
      inputSchema: object({ name: { type: "string" }, arguments: { type: "object" } }, ["name"]),
      annotations: {
        readOnlyHint: tools.every((tool) => tool.annotations.readOnlyHint),
        destructiveHint: tools.some((tool) => tool.annotations.destructiveHint),
      },
    },
  ];
}

/**
 * search_tools as tools/list gives it, in dynamic and code mode alike: the tools it searches are `whose` (this
 * server's, or in code mode this API's, which a script calls).
 */
export function searchTool({ tools, whose }: { tools: readonly Tool[]; whose: string }): ServedTool {
  return {
    name: SEARCH_TOOLS,
    title: "Search tools",
    description: `Find ${whose} tools (${tools.length}) for a task: names and summaries, best first.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "the task, in words" },
        limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT },
      },
      required: ["query"],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

function answer(result: ToolResult): { result: ToolResult } {
  return { result };
}
