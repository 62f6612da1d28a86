// What kind of source a file is: an OpenAPI document, a custom action definition or a manifest of sources.

export type SourceKind = "openapi" | "actions" | "manifest";
