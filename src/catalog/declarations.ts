// TypeScript types from the catalog's JSON Schemas: what `generate` writes into src/tools.ts and what code mode's
// `describe` shows a model. Shared definitions are named types (by `style.defs`), never inlined, so each is written
// once; shallow aliases keep `tsc` fast and far from TS2590 ("union type too complex") on 1,000-tool APIs.

import { comment, json, tsString } from "./ts-text.js";
import type { JsonSchema } from "./types.js";

const MAX_UNION_MEMBERS = 500;

/** How types are written: the type name of each shared definition (`$defs` key), and whether to keep descriptions. */
export interface TypeStyle {
  defs: { get(key: string): string | undefined };
  /** Property descriptions as doc comments (default: yes), cut to this many characters when given. */
  comments?: boolean;
  commentChars?: number;
  /** Enums with more members are written as their members' type (default: up to 500 literals). */
  maxEnum?: number;
  /** Property names that are identifiers unquoted (default: every name quoted). */
  bareNames?: boolean;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A member's name as TypeScript takes it: quoted unless `bare` and an identifier. */
export function memberName(name: string, bare = false): string {
  return bare && IDENTIFIER.test(name) ? name : tsString(name);
}

/** `get_pets-by.id` → `GetPetsById`; a leading digit gets a `T` in front; `taken` keeps names unique. */
export function typeName(text: string, taken: Set<string>): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") || "Type";
  if (/^[0-9]/.test(name)) name = `T${name}`;
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${name}${n}`;
  taken.add(unique);
  return unique;
}

export function typeOf(schema: JsonSchema | undefined, style: TypeStyle, indent: string): string {
  if (schema === undefined || schema === true) return "unknown";
  if (schema === false) return "never";
  const parts: string[] = [];
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.startsWith("#/$defs/") ? style.defs.get(schema.$ref.slice("#/$defs/".length)) : undefined;
    parts.push(name ?? "unknown");
  }
  if (schema.const !== undefined) parts.push(literal(schema.const));
  else if (Array.isArray(schema.enum)) parts.push(enumType(schema.enum, style));
  else if (schema.type !== undefined)
    parts.push(
      union(
        (Array.isArray(schema.type) ? schema.type : [schema.type]).map((t) => byType(String(t), schema, style, indent)),
      ),
    );
  else if (schema.properties !== undefined) parts.push(objectType(schema, style, indent));
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) parts.push(`(${union(branches.map((b) => typeOf(b as JsonSchema, style, indent)))})`);
  }
  if (Array.isArray(schema.allOf))
    parts.push(...schema.allOf.map((member) => `(${typeOf(member as JsonSchema, style, indent)})`));
  const meaningful = parts.filter((p) => p !== "unknown");
  return meaningful.length === 0 ? "unknown" : meaningful.join(" & ");
}

function byType(type: string, schema: Record<string, unknown>, style: TypeStyle, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      if (Array.isArray(schema.prefixItems))
        return `[${schema.prefixItems.map((item) => typeOf(item as JsonSchema, style, indent)).join(", ")}, ...unknown[]]`;
      return `Array<${typeOf(schema.items as JsonSchema | undefined, style, indent)}>`;
    }
    case "object":
      return objectType(schema, style, indent);
    default:
      return "unknown";
  }
}

export function objectType(schema: Record<string, unknown>, style: TypeStyle, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const description =
      typeof property === "object" && typeof property.description === "string" ? property.description : undefined;
    if (description && style.comments !== false) lines.push(comment(cut(description, style.commentChars), inner));
    lines.push(
      `${inner}${memberName(name, style.bareNames)}${required.has(name) ? "" : "?"}: ${typeOf(property, style, inner)};`,
    );
  }
  const extra = schema.additionalProperties;
  // An index signature must fit every declared property too, so it says no more than `unknown`.
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: unknown;`);
  else if (extra === undefined && lines.length === 0) return "Record<string, unknown>";
  return lines.length === 0 ? "Record<string, never>" : `{\n${lines.join("\n")}\n${indent}}`;
}

function literal(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "number" || typeof value === "string")
    return json(value);
  return "unknown";
}

/** An enum's literals; past `style.maxEnum` members, the type its members share (`string`), or `unknown`. */
function enumType(values: unknown[], style: TypeStyle): string {
  if (style.maxEnum === undefined || values.length <= style.maxEnum) return union(values.map(literal));
  const types = new Set(values.map((value) => (value === null ? "null" : typeof value)));
  return types.size === 1 && ["string", "number", "boolean"].includes([...types][0]!) ? [...types][0]! : "unknown";
}

function union(members: string[]): string {
  const distinct = [...new Set(members)];
  // A very long enum is still a string, say: past a point the literal union costs more than it tells.
  if (distinct.length > MAX_UNION_MEMBERS) return "unknown";
  return distinct.length === 0 ? "never" : distinct.join(" | ");
}

function cut(text: string, max: number | undefined): string {
  return max === undefined || text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
