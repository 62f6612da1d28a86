// An OpenAPI document as a source of tools: the version-neutral document and the source's settings (its id, filters,
// credentials). Made into tools by openapi-tools.ts, one operation at a time by operation-tool.ts.

import type { SourceSettings } from "./builder.js";
import type { ApiDocument } from "./document.js";

export interface OpenApiSource extends SourceSettings {
  kind: "openapi";
  document: ApiDocument;
}
