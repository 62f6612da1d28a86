// Collects the tools of one or more sources into a catalog: unique names, shared definitions, credentials,
// filters, and the diagnostics gathered on the way.

import type { SchemaDialect } from "./document.js";
import type { Filter, Filterable, FilterSet } from "./filter.js";
import { passes } from "./filter.js";
import { NameRegistry } from "./naming.js";
import { defineOwn } from "./own.js";
import { SchemaConverter } from "./schema/convert.js";
import type { CredentialOverride } from "./security.js";
import type {
  Catalog,
  CredentialScheme,
  Diagnostic,
  JsonObjectSchema,
  JsonSchema,
  InFlightLimits,
  RateLimit,
  SourceInfo,
  Tool,
} from "./types.js";

/** How one source is added to a catalog, whatever its kind. */
export interface SourceSettings {
  /** Namespace id in a manifest; "" for a single source. */
  id: string;
  baseUrl?: string;
  filters?: FilterSet;
  auth?: Record<string, CredentialOverride>;
  /** Where `auth` was written (a manifest entry), for messages. */
  authPlace?: { file: string; pointer: string };
  rateLimit?: RateLimit;
  /** A manifest entry's in-flight limits. */
  inFlight?: InFlightLimits;
}

export class CatalogBuilder {
  readonly tools: Tool[] = [];
  readonly definitions: Record<string, JsonSchema> = {};
  readonly credentials: Record<string, CredentialScheme> = {};
  readonly sources: SourceInfo[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private readonly names = new NameRegistry();
  private readonly matchedFilters = new Set<Filter>();
  private readonly filterPlaces = new Map<Filter, string>();

  constructor(private readonly filters: FilterSet = { include: [], exclude: [] }) {
    this.remember(filters, "command line");
  }

  /** Whether an operation passes the command line's filters and its own source's. */
  accepts(item: Filterable, sourceFilters?: FilterSet): boolean {
    if (!passes(item, this.filters, this.matchedFilters)) return false;
    return sourceFilters === undefined || passes(item, sourceFilters, this.matchedFilters);
  }

  remember(filters: FilterSet, place: string): void {
    for (const filter of [...filters.include, ...filters.exclude]) this.filterPlaces.set(filter, place);
  }

  /** A schema converter writing into this catalog's shared definitions and diagnostics. */
  schemaConverter({
    root,
    dialect,
    file,
    id,
  }: {
    root: unknown;
    dialect: SchemaDialect;
    file: string;
    id: string;
  }): SchemaConverter {
    return new SchemaConverter({
      root,
      dialect,
      file,
      keyPrefix: id ? `${id}.` : "",
      definitions: this.definitions,
      diagnostics: this.diagnostics,
    });
  }

  addCredential(id: string, credential: CredentialScheme): void {
    defineOwn(this.credentials, id, credential);
  }

  /** Holds a name the spec chose for one operation (`salt`); false when another tool has it or holds it. */
  holdName(name: string, salt: string): boolean {
    return this.names.hold(name, salt);
  }

  /**
   * An operation the document itself leaves out (`x-mcp`), which filters never bring back: an include filter that
   * names it is told why it finds nothing, rather than that it matched nothing.
   */
  excludedBySource({
    item,
    sourceFilters,
    report,
  }: {
    item: Filterable;
    sourceFilters?: FilterSet;
    report: (filter: string, place: string) => void;
  }): void {
    for (const filter of [...this.filters.include, ...(sourceFilters?.include ?? [])]) {
      if (!filter.matches(item)) continue;
      this.matchedFilters.add(filter);
      report(filter.text, this.filterPlaces.get(filter) ?? "filter");
    }
  }

  /** Adds a tool under a name unique in the catalog; `salt` tells same-named operations apart stably. */
  addTool(tool: Tool, salt: string): void {
    const claimed = this.names.claim(tool.name, salt);
    if (claimed.renamed) {
      this.diagnostics.push({
        severity: "warning",
        code: "duplicate-name",
        message: `name '${tool.name}' is already taken; this operation is named '${claimed.name}'`,
        file: tool.origin.file,
        pointer: tool.origin.pointer,
        tool: claimed.name,
      });
    }
    this.tools.push({ ...tool, name: claimed.name });
  }

  finish(): Catalog {
    for (const [filter, place] of this.filterPlaces) {
      if (!this.matchedFilters.has(filter)) {
        this.diagnostics.push({
          severity: "warning",
          code: "filter-unmatched",
          message: `filter '${filter.text}' (${place}) matched no operation`,
        });
      }
    }
    return {
      tools: this.tools,
      definitions: this.definitions,
      credentials: this.credentials,
      sources: this.sources,
      diagnostics: this.diagnostics,
    };
  }
}

/** The input object of a tool: unknown arguments are refused, so a misspelt name is caught before a request. */
export function inputObject({
  properties,
  required,
}: {
  properties: Array<[string, JsonSchema]>;
  required: string[];
}): JsonObjectSchema {
  return {
    type: "object",
    properties: Object.fromEntries(properties),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** Summary and description together, as the model reads them. */
export function describeTool({
  summary,
  description,
  deprecated,
}: {
  summary?: string;
  description?: string;
  deprecated?: boolean;
}): string {
  const parts: string[] = [];
  const brief = summary?.trim();
  const full = description?.trim();
  if (deprecated) parts.push("Deprecated.");
  if (brief) parts.push(brief);
  if (full && full !== brief) parts.push(full);
  return parts.join("\n\n");
}

/** A short human-readable title: the summary's first line, or the name. */
export function titleFor({ summary, name }: { summary?: string; name: string }): string {
  const line = summary?.trim().split("\n", 1)[0]?.trim().replace(/\.$/, "");
  return line && line.length <= 120 ? line : name;
}
