// Code mode's `describe_tools`: the operations asked about as a script calls them, `api.<tool>(args): Promise<…>`,
// in TypeScript written from the catalog by the writer `generate` uses for src/tools.ts (catalog/declarations.ts).
// Shared definitions the tools reach are written once, after them; the text stays bounded: a few tools a call,
// descriptions cut, and definitions past a budget left as `unknown` with a note saying so.

import { memberName, objectType, type TypeStyle, typeName, typeOf } from "../../catalog/declarations.js";
import { WRAPPED_RESULT_KEY } from "../../catalog/outputs.js";
import { comment } from "../../catalog/ts-text.js";
import type { JsonSchema, Tool } from "../../catalog/types.js";

/** Tools one describe_tools call may name: enough for a task's few steps, small enough to read. */
export const MAX_DESCRIBED_TOOLS = 8;
const DESCRIPTION_CHARS = 400;
/** An argument's description: its first sentence or two. */
const COMMENT_CHARS = 160;
/** Longer enums (Stripe's 300 merchant categories) are their type, `string`: the API says when a value is wrong. */
const MAX_ENUM = 40;
/** Characters of shared definitions one answer carries; those past it are `unknown` (describe them on their own). */
const DEFINITION_BUDGET = 12_000;

/** The declarations of `tools`, for a model writing a script. */
export function describeTools({
  tools,
  definitions,
}: {
  tools: readonly Tool[];
  definitions: Record<string, JsonSchema>;
}): string {
  const taken = new Set<string>(["Api"]);
  const names = new Map<string, string>();
  const order: string[] = [];
  // Every definition gets its name on first use, so tools and definitions refer to it by one name.
  const defs = {
    get(key: string): string | undefined {
      if (!(key in definitions)) return undefined;
      let name = names.get(key);
      if (name === undefined) {
        name = typeName(key, taken);
        names.set(key, name);
        order.push(key);
      }
      return name;
    },
  };
  const inputs: TypeStyle = { defs, bareNames: true, commentChars: COMMENT_CHARS, maxEnum: MAX_ENUM };
  const outputs: TypeStyle = { defs, comments: false, bareNames: true, maxEnum: MAX_ENUM };
  const members = tools.map((tool) => {
    const key = memberName(tool.name, true);
    const args = objectType(tool.inputSchema, inputs, "  ");
    const optional = (tool.inputSchema.required as unknown[] | undefined)?.length ? "" : "?";
    return [
      comment(docOf(tool), "  "),
      `  ${key}(args${optional}: ${args}): Promise<${outputType(tool, outputs)}>;`,
    ].join("\n");
  });
  const lines = ["interface Api {", members.join("\n"), "}", "declare const api: Api;"];
  let spent = 0;
  const left: string[] = [];
  // `order` grows while definitions are written: those they refer to follow them.
  for (let i = 0; i < order.length; i++) {
    const key = order[i]!;
    const name = names.get(key)!;
    if (spent > DEFINITION_BUDGET) {
      left.push(name);
      lines.push(`type ${name} = unknown;`);
      continue;
    }
    const text = `type ${name} = ${typeOf(definitions[key], outputs, "")};`;
    spent += text.length;
    lines.push(text);
  }
  if (left.length > 0)
    lines.push(`// ${left.length} more shared type${left.length === 1 ? "" : "s"} left as unknown to keep this short.`);
  return lines.join("\n");
}

/** What the script's promise resolves to: the response (unwrapped when MCP needed `{ result }`), else unknown. */
function outputType(tool: Tool, style: TypeStyle): string {
  const schema = tool.outputSchema;
  if (!schema) return "unknown";
  if (tool.outputWrapped) {
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    return typeOf(properties?.[WRAPPED_RESULT_KEY], style, "  ");
  }
  return typeOf(schema, style, "  ");
}

function docOf(tool: Tool): string {
  const head = tool.title && tool.title !== tool.name ? tool.title : "";
  const body = tool.description.trim();
  const text = body.startsWith(head) ? body : [head, body].filter(Boolean).join("\n");
  const cut = text.length > DESCRIPTION_CHARS ? `${text.slice(0, DESCRIPTION_CHARS - 1)}…` : text;
  return `${cut}\n${tool.operation.method} ${tool.operation.path}`;
}
