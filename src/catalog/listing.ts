// A tool as `tools/list` shows it, and what that entry weighs: the model pays for every byte of it up front.

import { DefinitionIndex, utf8Bytes } from "./schema/closure.js";
import type { Catalog, JsonObjectSchema, Tool, ToolAnnotations } from "./types.js";

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObjectSchema;
  outputSchema?: JsonObjectSchema;
  annotations: ToolAnnotations;
}

export interface ListingOptions {
  /** Advertise output schemas (off when output validation is off or only warns). */
  outputSchema?: boolean;
}

/** Approximate tokens for a byte count: the usual four bytes a token. */
export function approximateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

export class Listing {
  readonly index: DefinitionIndex;

  constructor(
    catalog: Pick<Catalog, "definitions">,
    private readonly options: ListingOptions = {},
  ) {
    this.index = new DefinitionIndex(catalog.definitions);
  }

  /** The `tools/list` entry of a tool, with self-contained schemas. */
  entry(tool: Tool): ListedTool {
    const { outputSchema } = this.bare(tool);
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: this.index.selfContained(tool.inputSchema),
      ...(outputSchema ? { outputSchema: this.index.selfContained(outputSchema) } : {}),
      annotations: tool.annotations,
    };
  }

  /** UTF-8 bytes of `JSON.stringify(entry(tool))`, computed without building the entry's `$defs`. */
  bytes(tool: Tool): number {
    const bare = this.bare(tool);
    let total = utf8Bytes(JSON.stringify(bare)) + this.index.defsBytes(tool.inputSchema);
    if (bare.outputSchema) total += this.index.defsBytes(bare.outputSchema);
    return total;
  }

  /** UTF-8 bytes of the whole `tools/list` result `{"tools":[…]}`. */
  totalBytes(tools: Tool[]): number {
    let total = `{"tools":[]}`.length + Math.max(0, tools.length - 1);
    for (const tool of tools) total += this.bytes(tool);
    return total;
  }

  private bare(tool: Tool): ListedTool {
    const showOutput = (this.options.outputSchema ?? true) && tool.outputSchema !== undefined;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(showOutput ? { outputSchema: tool.outputSchema! } : {}),
      annotations: tool.annotations,
    };
  }
}
