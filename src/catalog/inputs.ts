// One input object per tool: parameters by their OpenAPI names, the request body under `body`. Collisions
// between locations are settled in a fixed order (path, query, header, cookie, then the body), so names are
// stable; a name no client can carry gets a safe one (argument-names.ts); each parameter's style and explode are
// resolved from the defaults of its location.

import { ArgumentNames, isSafeArgument, renamedMessage, safeArgument } from "./argument-names.js";
import type { ApiOperation, ApiParameter, ApiRequestBody } from "./document.js";
import { OPENAPI_IGNORED_HEADERS, TRANSPORT_HEADERS } from "./http-headers.js";
import { bodyKind, preferredMediaType } from "./media-type.js";
import { defineOwn } from "./own.js";
import { isObject } from "./pointer.js";
import type { SchemaConverter } from "./schema/convert.js";
import type {
  JsonSchema,
  ParameterBinding,
  ParameterLocation,
  ParameterStyle,
  PropertyEncoding,
  Report,
  RequestBodyBinding,
} from "./types.js";

export const LOCATIONS: ParameterLocation[] = ["path", "query", "header", "cookie"];

const DEFAULT_STYLE: Record<ParameterLocation, ParameterStyle> = {
  path: "simple",
  query: "form",
  header: "simple",
  cookie: "form",
};
const ALLOWED_STYLES: Record<ParameterLocation, ParameterStyle[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "tabDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};

/** A multipart file: base64 content with a filename. */
export const FILE_SCHEMA = {
  type: "object",
  properties: {
    filename: { type: "string" },
    contentType: { type: "string", description: "Media type of the file; defaults to application/octet-stream." },
    data: { type: "string", contentEncoding: "base64", description: "The file's content, base64-encoded." },
  },
  required: ["filename", "data"],
  additionalProperties: false,
};

/** What a property says about itself, kept when its schema is replaced by the file schema. */
function annotationsOf(property: unknown): Record<string, unknown> {
  const own = isObject(property) ? property : {};
  return {
    ...(typeof own.description === "string" ? { description: own.description } : {}),
    ...(own.deprecated === true ? { deprecated: true } : {}),
  };
}

/** The file schema in place of a binary property. */
export function fileSchema(property: unknown): Record<string, unknown> {
  return { ...FILE_SCHEMA, ...annotationsOf(property) };
}

export interface BuiltInputs {
  properties: Array<[string, JsonSchema]>;
  required: string[];
  parameters: Record<ParameterLocation, ParameterBinding[]>;
  body?: RequestBodyBinding;
}

/** Parameters shared by many operations (components) are turned into schemas and bindings once per document. */
export interface InputCache {
  schemas: WeakMap<ApiParameter, JsonSchema>;
  bindings: WeakMap<ApiParameter, ParameterBinding>;
  /** `in:name` of the parameters already reported as renamed: once per document, not once per operation. */
  renamed: Set<string>;
}

export function inputCache(): InputCache {
  return { schemas: new WeakMap(), bindings: new WeakMap(), renamed: new Set() };
}

export function buildInputs({
  operation,
  converter,
  cache,
  credentialParameters,
  report,
}: {
  operation: ApiOperation;
  converter: SchemaConverter;
  cache: InputCache;
  /** `in:name` of parameters that security schemes fill in: never tool arguments. */
  credentialParameters: Set<string>;
  report: Report;
}): BuiltInputs {
  const result: BuiltInputs = {
    properties: [],
    required: [],
    parameters: { path: [], query: [], header: [], cookie: [] },
  };
  const parameters = withPathPlaceholders(operation, report);
  const accepted: ApiParameter[] = [];
  for (const location of LOCATIONS) {
    for (const parameter of parameters) {
      if (parameter.in !== location) continue;
      const key = `${location}:${location === "header" ? parameter.name.toLowerCase() : parameter.name}`;
      if (credentialParameters.has(key)) continue;
      if (location === "header" && OPENAPI_IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
      if (location === "header" && TRANSPORT_HEADERS.has(parameter.name.toLowerCase())) {
        report({
          severity: "warning",
          code: "reserved-header",
          pointer: parameter.pointer,
          message: `header parameter '${parameter.name}' is set by HTTP itself; it is not a tool argument`,
        });
        continue;
      }
      accepted.push(parameter);
    }
  }

  // Names as the document gives them first, then `body`, then the safe names of those no client can carry, so a
  // renamed `$select` never takes `select` from a parameter of that name.
  const names = new ArgumentNames();
  const argumentOf = new Map<ApiParameter, string>();
  for (const parameter of accepted)
    if (isSafeArgument(parameter.name)) argumentOf.set(parameter, names.claim(parameter.name, parameter.in));
  const built = operation.requestBody ? buildBody(operation.requestBody, converter, report) : undefined;
  const bodyArgument = built ? names.claim("body", "request") : undefined;
  for (const parameter of accepted) {
    if (argumentOf.has(parameter)) continue;
    const argument = names.claim(safeArgument(parameter.name), parameter.in);
    argumentOf.set(parameter, argument);
    const reported = `${parameter.in}:${parameter.name}`;
    if (!cache.renamed.has(reported)) {
      cache.renamed.add(reported);
      const message = renamedMessage({
        kind: `${parameter.in} parameter`,
        name: parameter.name,
        argument: safeArgument(parameter.name),
      });
      report({
        severity: "warning",
        code: "argument-renamed",
        pointer: parameter.pointer,
        message: `${message}; said once per document`,
      });
    }
  }

  for (const parameter of accepted) {
    const argument = argumentOf.get(parameter)!;
    let schema = cache.schemas.get(parameter);
    if (schema === undefined) {
      schema = parameterSchema(parameter, converter);
      cache.schemas.set(parameter, schema);
    }
    result.properties.push([argument, schema]);
    if (parameter.required) result.required.push(argument);
    // Bindings are shared too, unless a collision gave the argument another name than usual.
    const usual = argument === safeArgument(parameter.name);
    let bound = usual ? cache.bindings.get(parameter) : undefined;
    if (bound === undefined) {
      bound = binding(parameter, argument, converter, report);
      if (usual) cache.bindings.set(parameter, bound);
    }
    result.parameters[parameter.in].push(bound);
  }

  if (built && bodyArgument !== undefined) {
    result.properties.push([bodyArgument, built.schema]);
    if (built.binding.required) result.required.push(bodyArgument);
    result.body = { ...built.binding, argument: bodyArgument };
  }
  return result;
}

/** Declared parameters, minus path parameters the template lacks, plus placeholders nobody declared. */
function withPathPlaceholders(operation: ApiOperation, report: Report): ApiParameter[] {
  const placeholders = new Set([...operation.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!));
  const result: ApiParameter[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in === "path" && !placeholders.has(parameter.name)) {
      report({
        severity: "warning",
        code: "unused-path-parameter",
        pointer: parameter.pointer,
        message: `path parameter '${parameter.name}' does not appear in the path ${operation.path}; left out`,
      });
      continue;
    }
    result.push(parameter.in === "path" && !parameter.required ? { ...parameter, required: true } : parameter);
  }
  for (const name of placeholders) {
    if (result.some((p) => p.in === "path" && p.name === name)) continue;
    report({
      severity: "warning",
      code: "undeclared-path-parameter",
      pointer: operation.pointer,
      message: `path placeholder {${name}} has no parameter; it is taken as a required string`,
    });
    result.push({
      name,
      in: "path",
      required: true,
      pointer: operation.pointer,
      schema: { type: "string" },
      schemaPointer: operation.pointer,
    });
  }
  return result;
}

function parameterSchema(parameter: ApiParameter, converter: SchemaConverter): JsonSchema {
  const converted =
    parameter.schema === undefined
      ? {}
      : converter.convert(parameter.schema, { direction: "input", pointer: parameter.schemaPointer });
  const schema: Record<string, unknown> = typeof converted === "boolean" ? {} : { ...converted };
  if (parameter.description) schema.description = parameter.description;
  if (parameter.deprecated) schema.deprecated = true;
  if (parameter.example !== undefined && schema.examples === undefined) schema.examples = [parameter.example];
  return schema;
}

function binding(
  parameter: ApiParameter,
  argument: string,
  converter: SchemaConverter,
  report: Report,
): ParameterBinding {
  const location = parameter.in;
  let style = DEFAULT_STYLE[location];
  if (parameter.style !== undefined) {
    if ((ALLOWED_STYLES[location] as string[]).includes(parameter.style)) style = parameter.style as ParameterStyle;
    else
      report({
        severity: "warning",
        code: "invalid-style",
        pointer: parameter.pointer,
        message: `style '${parameter.style}' is not allowed for ${location} parameters; '${style}' is used`,
      });
  }
  const bound: ParameterBinding = {
    name: parameter.name,
    argument,
    required: parameter.required,
    style,
    explode: parameter.explode ?? style === "form",
    allowReserved: location === "query" && parameter.allowReserved === true,
    shape: shapeOf(converter.resolve(parameter.schema)),
  };
  if (parameter.contentType) bound.contentType = parameter.contentType;
  return bound;
}

export function shapeOf(schema: unknown): ParameterBinding["shape"] {
  if (!isObject(schema)) return "primitive";
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("array") || (schema.type === undefined && schema.items !== undefined)) return "array";
  if (
    types.includes("object") ||
    (schema.type === undefined && (isObject(schema.properties) || isObject(schema.additionalProperties)))
  )
    return "object";
  return "primitive";
}

function buildBody(
  requestBody: ApiRequestBody,
  converter: SchemaConverter,
  report: Report,
): { schema: JsonSchema; binding: Omit<RequestBodyBinding, "argument"> } | undefined {
  const chosen = preferredMediaType(requestBody.content);
  if (!chosen) return undefined;
  const kind = bodyKind(chosen.mediaType);
  const binding: Omit<RequestBodyBinding, "argument"> = {
    mediaType: chosen.mediaType,
    kind,
    required: requestBody.required,
  };
  let schema: Record<string, unknown>;
  if (kind === "json") {
    const converted =
      chosen.schema === undefined
        ? {}
        : converter.convert(chosen.schema, { direction: "input", pointer: chosen.schemaPointer });
    schema = typeof converted === "boolean" ? {} : { ...converted };
  } else if (kind === "form" || kind === "multipart") {
    const converted =
      chosen.schema === undefined
        ? {}
        : converter.convert(chosen.schema, { direction: "input", pointer: chosen.schemaPointer, inline: true });
    schema = typeof converted === "boolean" ? {} : { ...converted };
    const encoding = encodings({ schema, raw: converter.resolve(chosen.schema), chosen, kind, converter });
    if (encoding) binding.encoding = encoding;
  } else if (kind === "text") {
    schema = { type: "string" };
  } else {
    schema = {
      type: "string",
      contentEncoding: "base64",
      contentMediaType: chosen.mediaType,
      description: "The content, base64-encoded.",
    };
  }
  if (requestBody.content.length > 1 && kind !== "json") {
    report({
      severity: "warning",
      code: "body-media-type",
      pointer: requestBody.pointer,
      message: `request body offers ${requestBody.content.map((c) => c.mediaType).join(", ")}; ${chosen.mediaType} is used`,
    });
  }
  if (requestBody.description && schema.description === undefined) schema.description = requestBody.description;
  return { schema, binding };
}

/** Per-property encodings of a form or multipart body; binary properties of multipart bodies become files. */
function encodings({
  schema,
  raw,
  chosen,
  kind,
  converter,
}: {
  schema: Record<string, unknown>;
  raw: unknown;
  chosen: {
    encoding?: Record<string, { contentType?: string; style?: string; explode?: boolean; allowReserved?: boolean }>;
  };
  kind: "form" | "multipart";
  converter: SchemaConverter;
}): Record<string, PropertyEncoding> | undefined {
  const result: Array<[string, PropertyEncoding]> = [];
  const rawProperties = isObject(raw) && isObject(raw.properties) ? raw.properties : {};
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  for (const [name, stated] of Object.entries(chosen.encoding ?? {})) {
    const encoding: PropertyEncoding = {};
    if (stated.contentType) encoding.contentType = stated.contentType;
    if (stated.style && (ALLOWED_STYLES.query as string[]).includes(stated.style))
      encoding.style = stated.style as ParameterStyle;
    if (stated.explode !== undefined) encoding.explode = stated.explode;
    if (stated.allowReserved !== undefined) encoding.allowReserved = stated.allowReserved;
    result.push([name, encoding]);
  }
  if (kind === "multipart") {
    for (const [name, property] of Object.entries(rawProperties)) {
      const target = converter.resolve(property);
      const single = isBinary(target);
      const many = !single && isObject(target) && target.type === "array" && isBinary(converter.resolve(target.items));
      // A property the input direction dropped (readOnly) stays dropped.
      if ((!single && !many) || !Object.hasOwn(properties, name)) continue;
      defineOwn(
        properties,
        name,
        many ? { type: "array", items: FILE_SCHEMA, ...annotationsOf(properties[name]) } : fileSchema(properties[name]),
      );
      const existing = result.find(([key]) => key === name);
      if (existing) existing[1].file = true;
      else result.push([name, { file: true }]);
    }
    schema.properties = properties;
  }
  for (const [, encoding] of result) {
    if (encoding.style !== undefined && encoding.explode === undefined) encoding.explode = encoding.style === "form";
  }
  return result.length > 0 ? Object.fromEntries(result) : undefined;
}

export function isBinary(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (schema.type === "file") return true;
  const stringy = schema.type === "string" || schema.type === undefined;
  return stringy && (schema.format === "binary" || typeof schema.contentMediaType === "string");
}
