// The version-neutral form of an OpenAPI document. The loader brings Swagger 2.0, OpenAPI 3.0 and 3.1 to this
// one shape (parameters merged and resolved, servers chosen, security inherited), so the catalog is built by one
// walker. Schemas stay raw here; `dialect` tells the schema converter how to read them.

import type { AuthorizationCodeFlow, Diagnostic, HttpMethod, ParameterLocation, SideEffect } from "./types.js";

/** How raw schemas are to be read: OAS 2.0 / 3.0 are JSON Schema dialects of their own; 3.1 is 2020-12. */
export type SchemaDialect = "oas2" | "oas30" | "oas31" | "jsonschema";

export interface ApiDocument {
  /** e.g. "OpenAPI 3.0.3", "Swagger 2.0". */
  format: string;
  /** Where the document came from, for messages. */
  file: string;
  dialect: SchemaDialect;
  /** The whole document: local `$ref`s in schemas are resolved against it. */
  root: unknown;
  title: string;
  version: string;
  description?: string;
  operations: ApiOperation[];
  securitySchemes: Record<string, ApiSecurityScheme>;
  /** Operations the document's own `x-mcp` leaves out: not normalized, kept only to explain filters. */
  excluded?: ApiExcludedOperation[];
  /** Problems found while normalizing. */
  diagnostics: Diagnostic[];
}

export interface ApiOperation {
  /** JSON pointer of the operation object, e.g. `/paths/~1pets/get`. */
  pointer: string;
  method: HttpMethod;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags: string[];
  deprecated: boolean;
  /** The server URL that applies (operation, path or document level); "" when none. */
  serverUrl: string;
  parameters: ApiParameter[];
  requestBody?: ApiRequestBody;
  responses: ApiResponse[];
  /** Security requirement objects (OR of ANDs), already inherited from the document when not set. */
  security: Array<Record<string, string[]>>;
  /** The operation's `x-*` fields. */
  extensions: Record<string, unknown>;
  /** What the operation's `x-mcp` says about its tool, already checked. */
  mcp?: ApiToolOverrides;
}

/** The tool as the spec's author wants it (`x-mcp` on the operation); each field with the pointer it came from. */
export interface ApiToolOverrides {
  /** The operation's `x-mcp`, e.g. `/paths/~1pets/get/x-mcp`. */
  pointer: string;
  name?: string;
  title?: string;
  description?: string;
  effect?: SideEffect;
  annotations?: ApiAnnotationOverrides;
  approval?: boolean;
}

export interface ApiAnnotationOverrides {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ApiExcludedOperation {
  pointer: string;
  method: HttpMethod;
  path: string;
  operationId?: string;
  tags: string[];
  /** The `x-mcp` that decided: on the operation, its path item or the document. */
  excludedBy: string;
}

export interface ApiParameter {
  pointer: string;
  name: string;
  in: ParameterLocation;
  required: boolean;
  description?: string;
  deprecated?: boolean;
  /** Raw schema in the document's dialect. */
  schema?: unknown;
  schemaPointer: string;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  /** Set when the parameter is described by `content` rather than `schema`. */
  contentType?: string;
  example?: unknown;
}

export interface ApiEncoding {
  contentType?: string;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
}

export interface ApiMediaType {
  mediaType: string;
  schema?: unknown;
  schemaPointer: string;
  encoding?: Record<string, ApiEncoding>;
  example?: unknown;
}

export interface ApiRequestBody {
  pointer: string;
  required: boolean;
  description?: string;
  content: ApiMediaType[];
}

export interface ApiResponse {
  /** "200", "2XX", "default"… */
  status: string;
  pointer: string;
  description?: string;
  content: ApiMediaType[];
}

export type ApiSecurityScheme =
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string; description?: string }
  | { type: "http"; scheme: string; description?: string }
  | {
      type: "oauth2";
      /** Flow names present (clientCredentials, authorizationCode, implicit, password). */
      flows: string[];
      clientCredentials?: { tokenUrl: string; scopes: string[] };
      /** Where a person signs in (per-user sign-in, runtime/sign-in/sign-in.ts), when the document has this flow. */
      authorizationCode?: AuthorizationCodeFlow;
      description?: string;
    }
  | { type: "openIdConnect"; description?: string }
  | { type: "unsupported"; reason: string; description?: string };
