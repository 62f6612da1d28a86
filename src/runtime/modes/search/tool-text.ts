// What of a tool search reads, field by field, and how much each field counts. The name and summary say what a tool
// does; the summary's first word is its action ("Create…", "Cancel…"), which tells apart tools about the same thing;
// tags, path and the method's verb place it; arguments and prose add detail.

import type { JsonSchema, Tool } from "../../../catalog/types.js";

export const FIELD_WEIGHTS = {
  name: 2,
  summary: 3,
  action: 2,
  tags: 1,
  resource: 2,
  path: 1,
  verb: 1,
  arguments: 0.5,
  description: 0.6,
} as const;
export type Field = keyof typeof FIELD_WEIGHTS;
export const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

/** Long descriptions are cut: their opening says what the tool does; the rest is detail (and index memory). */
const DESCRIPTION_CHARS = 600;
/** How far into a description "deprecated" counts as saying the tool is. */
const DEPRECATION_CHARS = 200;

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
  const { title } = tool;
  const description = plain(tool.description);
  // Descriptions often open with the summary again; it is counted once, in its own field. Links say nothing.
  let prose = (description.startsWith(title) ? description.slice(title.length) : description)
    .replace(/\bhttps?:\/\/\S+/g, " ")
    .trim();
  // Many specs have no summaries (the title is then the operation's id): the description's first sentence is one.
  let summary = title;
  if (!/\s/.test(title.trim())) {
    summary = firstSentence(prose);
    prose = prose.slice(summary.length);
  }
  return {
    name: tool.name,
    summary,
    action: /^\s*(\S+)/.exec(summary)?.[1] ?? "",
    tags: tool.origin.tags.join(" "),
    resource: resourceOf(tool.operation.path),
    path: tool.operation.path,
    verb: verbOf(tool.operation),
    arguments: argumentWords(tool.inputSchema, definitions),
    description: prose.slice(0, DESCRIPTION_CHARS),
  };
}

/** Whether the tool says it is deprecated: in the spec (the description then opens "Deprecated.") or in its prose. */
export function isDeprecated(tool: Tool): boolean {
  return /\bdeprecated\b/i.test(plain(tool.description).slice(0, DEPRECATION_CHARS));
}

/** What a request calls the method: a POST to one item (`/customers/{id}`) changes it, as PUT and PATCH do. */
function verbOf({ method, path }: { method: string; path: string }): string {
  if (method === "POST" && /\}\/?$/.test(path)) return VERBS.PATCH!;
  return VERBS[method] ?? "";
}

/** The path's last fixed segment: what the tool acts on (`/repos/{owner}/{repo}/branches/{branch}` → branches). */
function resourceOf(path: string): string {
  const fixed = path.split("/").filter((segment) => segment !== "" && !segment.includes("{"));
  return fixed.at(-1) ?? "";
}

/** Descriptions in HTML (as some specs write them) read as text. */
function plain(text: string): string {
  return text
    .replace(/<[^>]*>/g, " ")
    .replace(/&[a-z]+;|&#\d+;/g, " ")
    .trim();
}

function firstSentence(text: string): string {
  return /^[^\n]*?[.!?](?=\s|$)|^[^\n]*/.exec(text)?.[0] ?? "";
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
