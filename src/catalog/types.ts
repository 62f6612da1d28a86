// The catalog: the one intermediate form every source is loaded into. Plain, JSON-serializable data that
// holds no secrets (only the names of the environment variables that hold them). The runtime engine and the
// generator read only this, never an OpenAPI document.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON Schema (2020-12) object; tools' schemas refer to shared definitions as `#/$defs/<key>`. */
export type JsonSchema = { [key: string]: unknown } | boolean;
export type JsonObjectSchema = { type: "object"; [key: string]: unknown };

/**
 * An OAuth 2.0 authorization code flow's URLs (absolute), as the document gives them. Its scopes are not kept: a
 * sign-in asks for the operation's (or the settings').
 */
export interface AuthorizationCodeFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
}

export const HTTP_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** What calling a tool may do to the world, from its HTTP method. */
export type SideEffect = "read" | "write" | "destructive";

export type ParameterLocation = "path" | "query" | "header" | "cookie";
export type ParameterStyle =
  | "simple"
  | "label"
  | "matrix"
  | "form"
  | "spaceDelimited"
  | "pipeDelimited"
  // Swagger 2.0 `collectionFormat: tsv` has no OpenAPI 3 style.
  | "tabDelimited"
  | "deepObject";

/** How one tool argument is put on the wire: style and explode already resolved from the defaults. */
export interface ParameterBinding {
  /** The name on the wire. */
  name: string;
  /** The property of the tool's input object that holds the value. */
  argument: string;
  required: boolean;
  style: ParameterStyle;
  explode: boolean;
  allowReserved: boolean;
  /** The value's shape decides how style and explode apply. */
  shape: "primitive" | "array" | "object";
  /** Set when the parameter is described by `content`: the value is serialized as this media type. */
  contentType?: string;
}

export type BodyKind = "json" | "form" | "multipart" | "text" | "binary";

/** How a property of a form or multipart body is encoded (OpenAPI `encoding`). */
export interface PropertyEncoding {
  contentType?: string;
  style?: ParameterStyle;
  explode?: boolean;
  allowReserved?: boolean;
  /** The argument is a file: `{ filename, contentType?, data }` with base64 `data`. */
  file?: boolean;
}

export interface RequestBodyBinding {
  /** The media type sent as `Content-Type`. */
  mediaType: string;
  kind: BodyKind;
  required: boolean;
  /** The whole body is this argument (OpenAPI sources: `body`)… */
  argument?: string;
  /** …or the body is an object built from these arguments (action definitions). */
  fields?: string[];
  /** Fields whose name in the body is not their argument's (a name no client could carry): argument → name. */
  fieldNames?: Record<string, string>;
  encoding?: Record<string, PropertyEncoding>;
}

export interface RateLimit {
  requests: number;
  windowSeconds: number;
}

/** Limits from a settings file, by tool name and by source id ("default" for a single source). */
export interface RateLimits {
  tools?: Record<string, RateLimit>;
  sources?: Record<string, RateLimit>;
}

/** Calls in flight for one source (settings `inFlight.sources`, a manifest source's `inFlight`): any subset. */
export interface InFlightLimits {
  maxInFlight?: number;
  maxInFlightPerPrincipal?: number;
  maxQueued?: number;
  queueTimeoutMs?: number;
}

/** One alternative of a security requirement: every scheme listed must be applied. */
export interface SecurityRequirement {
  schemes: Array<{ id: string; scopes: string[] }>;
}

/** Where a credential value comes from: an environment variable, or a literal for values that are not secret. */
export type ValueSource = { env: string } | { value: string };

interface CredentialBase {
  /** The scheme's name in its source (for messages). */
  name: string;
  description?: string;
}
export type CredentialScheme =
  | (CredentialBase & { type: "apiKey"; in: "header" | "query" | "cookie"; parameter: string; value: ValueSource })
  | (CredentialBase & {
      type: "bearer";
      token: ValueSource;
      /** The document's authorization code flow, when the token comes from a person's sign-in (per-user mode). */
      authorizationCode?: AuthorizationCodeFlow;
    })
  | (CredentialBase & { type: "basic"; username: ValueSource; password: ValueSource })
  | (CredentialBase & {
      type: "oauth2";
      tokenUrl: string;
      scopes: string[];
      clientId: ValueSource;
      clientSecret: ValueSource;
      /** The document's authorization code flow too, for per-user sign-in. */
      authorizationCode?: AuthorizationCodeFlow;
    })
  | (CredentialBase & { type: "unsupported"; reason: string });

export interface Operation {
  method: HttpMethod;
  /** Base URL the path is appended to; "" when the source names none (then a base URL must be given). */
  serverUrl: string;
  /** Path template, with `{name}` placeholders. */
  path: string;
  parameters: Record<ParameterLocation, ParameterBinding[]>;
  body?: RequestBodyBinding;
  /** Static headers sent with every request; values may hold `${VAR}` references. */
  headers?: Record<string, string>;
  /** Media types of the success response, for `Accept`. */
  accept: string[];
  /** Any one alternative satisfies the requirement; an empty list means no credentials. */
  security: SecurityRequirement[];
  rateLimit?: RateLimit;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObjectSchema;
  outputSchema?: JsonObjectSchema;
  /** The response is not an object, so it is returned as `{ result: <response> }`. */
  outputWrapped?: boolean;
  annotations: ToolAnnotations;
  effect: SideEffect;
  /** The source asks for human approval before each call. */
  approval?: boolean;
  operation: Operation;
  /** Namespace id of the source in a manifest; "" for a single source. */
  source: string;
  /** Where the tool came from, for messages and filters. */
  origin: { file: string; pointer: string; operationId?: string; tags: string[] };
}

export interface SourceInfo {
  id: string;
  kind: "openapi" | "actions";
  /** e.g. "OpenAPI 3.0.3" or "action definition". */
  format: string;
  title: string;
  version: string;
  location: string;
  rateLimit?: RateLimit;
  /** A manifest source's in-flight limits. */
  inFlight?: InFlightLimits;
}

export type Severity = "error" | "warning";
export interface Diagnostic {
  severity: Severity;
  code: string;
  message: string;
  file?: string;
  /** JSON pointer into the file. */
  pointer?: string;
  /** Where the pointer is in the file's text (1-based); set by `validate`, which keeps the text. */
  line?: number;
  column?: number;
  /** The tool or operation concerned. */
  tool?: string;
}

/** A diagnostic before its file is added: the step that finds it does not know the file, its caller does. */
export type FilelessDiagnostic = Omit<Diagnostic, "file">;
/** Where a step sends what it finds; the caller adds the file (and the tool, for a tool's problems). */
export type Report = (diagnostic: FilelessDiagnostic) => void;

export interface Catalog {
  tools: Tool[];
  /** Schemas shared by the tools' schemas, which refer to them as `#/$defs/<key>`. */
  definitions: Record<string, JsonSchema>;
  /** Credential schemes by id; tools name them in `operation.security`. */
  credentials: Record<string, CredentialScheme>;
  sources: SourceInfo[];
  diagnostics: Diagnostic[];
}
