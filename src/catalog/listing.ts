// A tool as `tools/list` shows it, and what that entry weighs: the model pays for every byte of it up front, so
// schemas are shown compacted (schema/compact.ts) and nothing is said twice.

import { compactSchema, type SchemaUse } from "./schema/compact.js";
import { DefinitionIndex, utf8Bytes } from "./schema/closure.js";
import { namesInheritedProperty } from "./schema/inherited-names.js";
import type { Catalog, JsonObjectSchema, JsonSchema, Tool, ToolAnnotations } from "./types.js";

/** The top-level `title` names the tool; `annotations.title` (its older place) would only repeat it. */
export type ListedAnnotations = Omit<ToolAnnotations, "title"> & { title?: string };

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObjectSchema;
  outputSchema?: JsonObjectSchema;
  annotations: ListedAnnotations;
}

export interface ListingOptions {
  /** Advertise output schemas (off when output validation is off or only warns). */
  outputSchema?: boolean;
  /** Output schemas larger than this (with their `$defs`) are not advertised; MAX_ADVERTISED_OUTPUT_BYTES by default. */
  maxOutputSchemaBytes?: number;
}

/**
 * An output schema is for the client's validator, not the model, yet every client pays for it in tools/list. One
 * that names a property every object inherits is not advertised (schema/inherited-names.ts). Past 8 KiB it costs
 * more than it helps: Stripe's interlinked schemas would make each entry ~1 MB (20M tokens in all).
 * The server still checks every response against the full schema and still returns structured content.
 */
export const MAX_ADVERTISED_OUTPUT_BYTES = 8 * 1024;

/** Approximate tokens for a byte count: the usual four bytes a token. */
export function approximateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

export class Listing {
  /** Shared definitions as input and as output schemas show them. */
  private readonly index: Record<SchemaUse, DefinitionIndex>;
  /** Each tool's advertised output schema, or null when it is too large to advertise. */
  private readonly outputs = new WeakMap<Tool, JsonObjectSchema | null>();
  /** Per definition: whether it names a property every object inherits (see clientSafe). */
  private readonly inherited = new Map<string, boolean>();
  private readonly definitions: Record<string, JsonSchema>;

  constructor(
    catalog: Pick<Catalog, "definitions">,
    private readonly options: ListingOptions = {},
  ) {
    this.definitions = catalog.definitions;
    const view = (use: SchemaUse) => (definition: Parameters<typeof compactSchema>[0], key: string) =>
      compactSchema(definition, { use, name: definitionName(key) });
    this.index = {
      input: new DefinitionIndex(catalog.definitions, view("input")),
      output: new DefinitionIndex(catalog.definitions, view("output")),
    };
  }

  /** The `tools/list` entry of a tool, with self-contained schemas. */
  entry(tool: Tool): ListedTool {
    const bare = this.bare(tool);
    return {
      ...bare,
      inputSchema: this.index.input.selfContained(bare.inputSchema),
      ...(bare.outputSchema ? { outputSchema: this.index.output.selfContained(bare.outputSchema) } : {}),
    };
  }

  /** UTF-8 bytes of `JSON.stringify(entry(tool))`, computed without building the entry's `$defs`. */
  bytes(tool: Tool): number {
    const bare = this.bare(tool);
    let total = utf8Bytes(JSON.stringify(bare)) + this.index.input.defsBytes(bare.inputSchema);
    if (bare.outputSchema) total += this.index.output.defsBytes(bare.outputSchema);
    return total;
  }

  /** UTF-8 bytes of the whole `tools/list` result `{"tools":[…]}`. */
  totalBytes(tools: Tool[]): number {
    let total = `{"tools":[]}`.length + Math.max(0, tools.length - 1);
    for (const tool of tools) total += this.bytes(tool);
    return total;
  }

  /** The compacted output schema when it is advertised: asked for, and within the size limit with its `$defs`. */
  private advertisedOutput(tool: Tool): JsonObjectSchema | undefined {
    if (!(this.options.outputSchema ?? true) || tool.outputSchema === undefined) return undefined;
    let decided = this.outputs.get(tool);
    if (decided === undefined) {
      const schema = compactSchema(tool.outputSchema, { use: "output", top: true }) as JsonObjectSchema;
      const bytes = utf8Bytes(JSON.stringify(schema)) + this.index.output.defsBytes(schema);
      decided =
        bytes <= (this.options.maxOutputSchemaBytes ?? MAX_ADVERTISED_OUTPUT_BYTES) && this.clientSafe(schema)
          ? schema
          : null;
      this.outputs.set(tool, decided);
    }
    return decided ?? undefined;
  }

  /** No property of the schema or a definition it reaches is named like one every object inherits. */
  private clientSafe(schema: JsonObjectSchema): boolean {
    if (namesInheritedProperty(schema)) return false;
    return this.index.output.closure(schema).every((key) => {
      let inherited = this.inherited.get(key);
      if (inherited === undefined) {
        inherited = Object.hasOwn(this.definitions, key) && namesInheritedProperty(this.definitions[key]!);
        this.inherited.set(key, inherited);
      }
      return !inherited;
    });
  }

  /** The entry with its schemas compacted but without their `$defs`; keys in the order the entry has them. */
  private bare(tool: Tool): ListedTool {
    const outputSchema = this.advertisedOutput(tool);
    const { title: _title, ...annotations } = tool.annotations;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: compactSchema(tool.inputSchema, { use: "input", top: true }) as JsonObjectSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations: tool.annotations.title === tool.title ? annotations : tool.annotations,
    };
  }
}

/** What a definition is called, for titles that only repeat it: `cars.Pet.input` → `Pet`. */
function definitionName(key: string): string {
  const plain = key.replace(/\.(input|output)$/, "").replace(/_\d+$/, "");
  return plain.slice(plain.lastIndexOf(".") + 1);
}
