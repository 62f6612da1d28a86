// Loading: a source (an OpenAPI document, an action definition or a manifest of several) from a file or an
// https:// URL into one catalog.

import { CatalogBuilder } from "../catalog/builder.js";
import { parseFilters } from "../catalog/filter.js";
import type { Catalog } from "../catalog/types.js";
import { addManifest } from "./manifest.js";
import type { LoadOptions } from "./sources.js";
import { addSource, readDocument, unknownKind } from "./sources.js";

export type { LoadOptions, SourceKind } from "./sources.js";
export { detectKind } from "./sources.js";

export async function loadCatalog(source: string, options: LoadOptions = {}): Promise<Catalog> {
  const builder = new CatalogBuilder(parseFilters({ ...options, place: "command line" }));
  const document = await readDocument({ location: source, display: source, options });
  if (document.kind === undefined) throw unknownKind(document.origin.display);
  if (document.kind === "manifest") {
    await addManifest({ builder, manifest: document, options });
  } else {
    await addSource({ builder, document, options, settings: { id: "", ...(options.baseUrl ? { baseUrl: options.baseUrl.replace(/\/+$/, "") } : {}) } });
  }
  return builder.finish();
}
