// Loading: sources (OpenAPI documents, action definitions, manifests) from files or URLs into one catalog.

import { CatalogBuilder } from "../catalog/builder.js";
import type { ApiDocument } from "../catalog/document.js";
import { UserError } from "../catalog/errors.js";
import { parseFilters } from "../catalog/filter.js";
import { addOpenApiSource } from "../catalog/openapi-tools.js";
import { isObject } from "../catalog/pointer.js";
import type { Catalog } from "../catalog/types.js";
import { bundleExternalRefs, refPolicy } from "./external-refs.js";
import { normalizeOpenApi, openApiVersion } from "./openapi/index.js";
import { parseText } from "./parse.js";
import type { SourceText } from "./read.js";
import { readSource } from "./read.js";

export interface LoadOptions {
  /** Upstream base URL instead of the document's servers. */
  baseUrl?: string;
  include?: string[];
  exclude?: string[];
  /** Directories or URL prefixes external `$ref`s may also read. */
  allowRefs?: string[];
  allowInsecureHttp?: boolean;
}

export type SourceKind = "openapi" | "actions" | "manifest";

/** A source's kind is told by its content. */
export function detectKind(value: unknown): SourceKind | undefined {
  if (!isObject(value)) return undefined;
  if (value.openapi !== undefined || value.swagger !== undefined) return "openapi";
  if (value.actions !== undefined) return "actions";
  if (value.sources !== undefined) return "manifest";
  return undefined;
}

export async function loadCatalog(source: string, options: LoadOptions = {}): Promise<Catalog> {
  const text = await readSource(source, { ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}) });
  const parsed = parseText({ text: text.text, file: text.display });
  const kind = detectKind(parsed.value);
  const builder = new CatalogBuilder(parseFilters({ ...options, place: "command line" }));
  switch (kind) {
    case "openapi": {
      const document = await loadOpenApi({ value: parsed.value as Record<string, unknown>, text, options });
      addOpenApiSource(builder, { kind: "openapi", id: "", document, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) });
      break;
    }
    default:
      throw new UserError({
        code: "E_SOURCE_KIND",
        message: `${text.display}: not an OpenAPI document, action definition or manifest (expected a top-level 'openapi', 'swagger', 'actions' or 'sources' key)`,
      });
  }
  return builder.finish();
}

async function loadOpenApi({ value, text, options }: { value: Record<string, unknown>; text: SourceText; options: LoadOptions }): Promise<ApiDocument> {
  const policy = refPolicy({ source: text, ...(options.allowRefs ? { allowRefs: options.allowRefs } : {}), ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}) });
  // Refuse an unsupported version before any external file is read.
  openApiVersion({ root: value, file: text.display });
  const root = (await bundleExternalRefs({ value, source: text, policy })) as Record<string, unknown>;
  return normalizeOpenApi({ root, file: text.display, location: text.location });
}
