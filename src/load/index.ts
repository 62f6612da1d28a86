// Loading: a source (an OpenAPI document, an action definition or a manifest of several) from a file or an
// https:// URL into one catalog.

import { CatalogBuilder } from "../catalog/builder.js";
import { parseFilters } from "../catalog/filter.js";
import type { Catalog } from "../catalog/types.js";
import { addManifest } from "./manifest.js";
import { parseText } from "./parse.js";
import { readSource } from "./read.js";
import type { LoadOptions } from "./sources.js";
import { addSource, detectKind, unknownKind } from "./sources.js";

export type { LoadOptions, SourceKind } from "./sources.js";
export { detectKind } from "./sources.js";

export async function loadCatalog(source: string, options: LoadOptions = {}): Promise<Catalog> {
  const builder = new CatalogBuilder(parseFilters({ ...options, place: "command line" }));
  const text = await readSource(source, { ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}) });
  const parsed = parseText({ text: text.text, file: text.display });
  const kind = detectKind(parsed.value);
  if (kind === undefined) throw unknownKind(text.display);
  if (kind === "manifest") {
    await addManifest({ builder, text, parsed, options });
  } else {
    await addSource({ builder, text, parsed, options, settings: { id: "", ...(options.baseUrl ? { baseUrl: options.baseUrl.replace(/\/+$/, "") } : {}) } });
  }
  return builder.finish();
}
