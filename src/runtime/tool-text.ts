// What of a tool search reads, field by field, and how much each field counts. The name and summary say what a tool
// does; the summary's first word is its action ("Create…", "Cancel…"), which tells apart tools about the same thing;
// tags, path and the method's verb place it; arguments and prose add detail.

import type { JsonSchema, Tool } from "../catalog/types.js";

export const FIELD_WEIGHTS = {
  name: 2,
  summary: 3,
  action: 2,
  tags: 1,
  path: 1,
  verb: 1,
  arguments: 0.5,
  description: 0.6,
} as const;
export type Field = keyof typeof FIELD_WEIGHTS;
export const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

/** Long descriptions are cut: their opening says what the tool does; the rest is detail (and index memory). */
const DESCRIPTION_CHARS = 600;

/** What a request usually calls what a method does. */
const VERBS: Record<string, string> = {
  GET: "get list show",
  HEAD: "get check",
  POST: "create add",
  PUT: "set update replace add",
  PATCH: "update edit",
  DELETE: "delete remove",
};

/** The text of each field of a tool. */
export function toolText(tool: Tool, definitions: Record<string, JsonSchema>): Record<Field, string> {
  const { description, title } = tool;
  // Descriptions often open with the summary again; it is counted once, in its own field. Links say nothing.
  const prose = (description.startsWith(title) ? description.slice(title.length) : description).replace(
    /\bhttps?:\/\/\S+/g,
    " ",
  );
  return {
    name: tool.name,
    summary: title,
    action: /^\s*(\S+)/.exec(title)?.[1] ?? "",
    tags: tool.origin.tags.join(" "),
    path: tool.operation.path,
    verb: VERBS[tool.operation.method] ?? "",
    arguments: argumentWords(tool.inputSchema, definitions),
    description: prose.slice(0, DESCRIPTION_CHARS),
  };
}

/** Argument names, the body's property names and short enum values: "state: open | closed" is how one closes an issue. */
function argumentWords(schema: JsonSchema, definitions: Record<string, JsonSchema>): string {
  const found: string[] = [];
  const visit = (node: JsonSchema | undefined, depth: number): void => {
    const resolved = dereference(node, definitions);
    if (typeof resolved !== "object" || resolved === null) return;
    const properties = resolved.properties;
    if (typeof properties !== "object" || properties === null) return;
    for (const [name, property] of Object.entries(properties as Record<string, JsonSchema>)) {
      found.push(name);
      const inner = dereference(property, definitions);
      if (typeof inner === "object" && Array.isArray(inner.enum)) {
        for (const value of inner.enum) if (typeof value === "string" && value.length <= 20) found.push(value);
      }
      if (depth === 0 && name === "body") visit(property, 1);
    }
  };
  visit(schema, 0);
  return found.join(" ");
}

const DEFS = "#/$defs/";

function dereference(node: JsonSchema | undefined, definitions: Record<string, JsonSchema>): JsonSchema | undefined {
  if (typeof node !== "object" || node === null || typeof node.$ref !== "string") return node;
  return node.$ref.startsWith(DEFS) ? definitions[node.$ref.slice(DEFS.length)] : undefined;
}
