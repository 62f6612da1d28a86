// The public library API: everything the CLI does is reachable from here.

export type { ActionDefinition } from "./catalog/action-definition.js";
export type { ApiDocument } from "./catalog/document.js";
export { isUserError, OpenApiMcpError, UserError } from "./catalog/errors.js";
export { globToRegExp, parseFilter } from "./catalog/filter.js";
export type { ListedTool } from "./catalog/listing.js";
export { approximateTokens, Listing } from "./catalog/listing.js";
export { MAX_TOOL_NAME_LENGTH, TOOL_NAME_PATTERN } from "./catalog/naming.js";
export { DefinitionIndex } from "./catalog/schema/closure.js";
export type * from "./catalog/types.js";
export type { InspectReport, ToolSummary } from "./inspect/report.js";
export { inspectCatalog } from "./inspect/report.js";
export { renderReport } from "./inspect/render.js";
export type { CatalogSource, DocumentSource } from "./load/in-memory.js";
export type { LoadOptions } from "./load/sources.js";
export { detectKind } from "./load/sources.js";
export { loadCatalog } from "./load/index.js";
export type { CacheOptions, CatalogLoad } from "./load/cache.js";
export { loadCatalogCached } from "./load/cache.js";
export type { CallOptions, CallReport } from "./app/call.js";
export { callTool } from "./app/call.js";
export type { EngineOptions } from "./runtime/engine-options.js";
export { Engine } from "./runtime/engine.js";
export type { ServeMode } from "./runtime/modes/dynamic.js";
export { DynamicProvider } from "./runtime/modes/dynamic.js";
export { CodeProvider } from "./runtime/modes/code-mode.js";
export type { ScriptLimits } from "./runtime/modes/sandbox/script.js";
export type { SearchHit } from "./runtime/modes/search/search.js";
export { ToolSearch } from "./runtime/modes/search/search.js";
export type {
  ContentBlock,
  OutputValidation,
  PreparedRequest,
  ServedTool,
  ToolProvider,
  ToolResult,
} from "./runtime/types.js";
export type { RunningServer, ServeOptions } from "./app/serve-options.js";
export { serve } from "./app/serve.js";
