// One source (an OpenAPI document or an action definition) into the catalog under construction.

import { addActionSource } from "../catalog/actions.js";
import type { CatalogBuilder } from "../catalog/builder.js";
import type { ApiDocument } from "../catalog/document.js";
import { UserError } from "../catalog/errors.js";
import type { FilterSet } from "../catalog/filter.js";
import { addOpenApiSource } from "../catalog/openapi-tools.js";
import { isObject } from "../catalog/pointer.js";
import type { CredentialOverride } from "../catalog/security.js";
import type { RateLimit } from "../catalog/types.js";
import { readActionDefinition } from "./actions.js";
import { bundleExternalRefs, refPolicy } from "./external-refs.js";
import { conformanceWarnings } from "./openapi/conformance.js";
import { normalizeOpenApi, openApiVersion } from "./openapi/index.js";
import type { Parsed } from "./parse.js";
import type { SourceText } from "./read.js";
import type { Environment } from "./variables.js";

export interface LoadOptions {
  /** Upstream base URL instead of the document's servers (single sources only). */
  baseUrl?: string;
  include?: string[];
  exclude?: string[];
  /** Directories or URL prefixes external `$ref`s may also read. */
  allowRefs?: string[];
  allowInsecureHttp?: boolean;
  /** Where `${VAR}` references are looked up; the process environment by default. */
  env?: Environment;
  /** Also check OpenAPI documents against the official schemas (slower; for `validate`). */
  checkConformance?: boolean;
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

export function unknownKind(file: string): UserError {
  return new UserError({
    code: "E_SOURCE_KIND",
    message: `${file}: not an OpenAPI document, action definition or manifest (expected a top-level 'openapi', 'swagger', 'actions' or 'sources' key)`,
  });
}

export interface SourceSettings {
  id: string;
  baseUrl?: string;
  filters?: FilterSet;
  auth?: Record<string, CredentialOverride>;
  rateLimit?: RateLimit;
}

export async function addSource({
  builder,
  text,
  parsed,
  settings,
  options,
}: {
  builder: CatalogBuilder;
  text: SourceText;
  parsed: Parsed;
  settings: SourceSettings;
  options: LoadOptions;
}): Promise<void> {
  const kind = detectKind(parsed.value);
  const common = {
    id: settings.id,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.filters ? { filters: settings.filters } : {}),
    ...(settings.auth ? { auth: settings.auth } : {}),
    ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
  };
  if (kind === "openapi") {
    const document = await loadOpenApi({ value: parsed.value as Record<string, unknown>, text, options });
    addOpenApiSource(builder, { kind: "openapi", document, ...common });
  } else if (kind === "actions") {
    const definition = readActionDefinition({ parsed, file: text.display, env: options.env ?? process.env });
    addActionSource(builder, { kind: "actions", file: text.display, definition, ...common });
  } else {
    throw unknownKind(text.display);
  }
}

async function loadOpenApi({ value, text, options }: { value: Record<string, unknown>; text: SourceText; options: LoadOptions }): Promise<ApiDocument> {
  // Refuse an unsupported version before any external file is read.
  openApiVersion({ root: value, file: text.display });
  const policy = refPolicy({ source: text, ...(options.allowRefs ? { allowRefs: options.allowRefs } : {}), ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}) });
  const root = (await bundleExternalRefs({ value, source: text, policy })) as Record<string, unknown>;
  const document = normalizeOpenApi({ root, file: text.display, location: text.location });
  if (options.checkConformance) document.diagnostics.push(...(await conformanceWarnings({ root, file: text.display, format: document.format })));
  return document;
}
