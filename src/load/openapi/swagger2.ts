// Swagger 2.0 into the version-neutral document: host/basePath/schemes become a server URL, the `body` parameter
// and `formData` fields become a request body, consumes/produces become media types, collectionFormat becomes
// style and explode.

import type { ApiDocument, ApiExcludedOperation, ApiEncoding, ApiOperation, ApiParameter, ApiRequestBody, ApiResponse, ApiSecurityScheme } from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { ParameterLocation } from "../../catalog/types.js";
import { isUrl } from "../../catalog/url.js";
import { merge } from "./openapi3.js";
import { extensions, METHOD_KEYS, type NormalizeInput, Normalizer, requirements, stringList, text, trimTrailingSlash, unsupportedScheme } from "./normalizer.js";
import type { ServerVariableInput } from "./servers.js";
import { isPathKey, readMcpExtension, readOperationMcp } from "./x-mcp.js";

// `collectionFormat` → [style, explode]; csv is the default for arrays.
const COLLECTION_FORMATS: Record<string, [string, boolean]> = {
  csv: ["form", false],
  ssv: ["spaceDelimited", false],
  tsv: ["tabDelimited", false],
  pipes: ["pipeDelimited", false],
  multi: ["form", true],
};
const NOT_SCHEMA = new Set(["name", "in", "required", "description", "collectionFormat", "allowEmptyValue"]);

export function normalizeSwagger2({ root, file, location, serverVariables }: NormalizeInput): ApiDocument {
  const n = new Normalizer(root, file, location);
  const info = isObject(root.info) ? root.info : {};
  const server = serverUrl(n);
  noServerVariables({ n, serverVariables });
  const documentSecurity = requirements(root.security) ?? [];
  const consumesAll = stringList(root.consumes);
  const producesAll = stringList(root.produces);
  const operations: ApiOperation[] = [];
  const excluded: ApiExcludedOperation[] = [];
  const documentMcp = readMcpExtension({ n, owner: root, pointer: "", level: "document" });
  const paths = isObject(root.paths) ? root.paths : {};

  for (const [key, rawItem] of Object.entries(paths)) {
    if (!isPathKey({ n, key })) continue;
    const item = n.deref(rawItem, joinPointer("/paths", key));
    if (!item) continue;
    const path = n.requestPath(key, joinPointer("/paths", key));
    const pathMcp = readMcpExtension({ n, owner: item.value, pointer: item.pointer, level: "path" });
    const pathParameters = rawParameters(n, item.value.parameters, `${item.pointer}/parameters`);
    for (const [key, method] of METHOD_KEYS) {
      if (item.value[key] === undefined || key === "trace") continue;
      const pointer = joinPointer(item.pointer, key);
      const operation = item.value[key];
      if (!isObject(operation)) {
        n.warn("invalid-operation", pointer, "an operation must be an object; skipped");
        continue;
      }
      const { mcp, left } = readOperationMcp({ n, operation, where: { pointer, method, path }, above: [pathMcp, documentMcp], excluded });
      if (left) continue;
      const operationId = text(operation.operationId);
      const consumes = stringList(operation.consumes).length > 0 ? stringList(operation.consumes) : consumesAll.length > 0 ? consumesAll : ["application/json"];
      const produces = stringList(operation.produces).length > 0 ? stringList(operation.produces) : producesAll.length > 0 ? producesAll : ["application/json"];
      const all = mergeRaw(pathParameters, rawParameters(n, operation.parameters, `${pointer}/parameters`));
      const parameters = all.filter((p) => p.raw.in !== "body" && p.raw.in !== "formData").map(toParameter);
      const requestBody = body({ all, consumes, pointer });
      const summary = text(operation.summary);
      const description = text(operation.description);
      operations.push({
        pointer,
        method,
        path,
        ...(operationId !== undefined ? { operationId } : {}),
        ...(summary !== undefined ? { summary } : {}),
        ...(description !== undefined ? { description } : {}),
        tags: stringList(operation.tags),
        deprecated: operation.deprecated === true,
        serverUrl: server,
        parameters: merge([], parameters),
        ...(requestBody ? { requestBody } : {}),
        responses: responses(n, operation.responses, `${pointer}/responses`, produces),
        security: requirements(operation.security) ?? documentSecurity,
        extensions: extensions(operation),
        ...(mcp?.overrides ? { mcp: mcp.overrides } : {}),
      });
    }
  }
  return {
    format: "Swagger 2.0",
    file,
    dialect: "oas2",
    root,
    title: text(info.title) ?? "untitled",
    version: typeof info.version === "string" || typeof info.version === "number" ? String(info.version) : "",
    ...(text(info.description) ? { description: text(info.description)! } : {}),
    operations,
    ...(excluded.length > 0 ? { excluded } : {}),
    securitySchemes: securitySchemes(n),
    diagnostics: n.diagnostics,
  };
}

function serverUrl(n: Normalizer): string {
  const host = text(n.root.host);
  const basePath = text(n.root.basePath) ?? "";
  const schemes = stringList(n.root.schemes).map((s) => s.toLowerCase());
  if (!host) return trimTrailingSlash(n.absoluteUrl(basePath || "/"));
  // Without `schemes`, the scheme is the one the document was fetched with; https for a local file.
  const scheme = schemes.includes("https") ? "https" : (schemes[0] ?? (isUrl(n.location) ? new URL(n.location).protocol.slice(0, -1) : "https"));
  return trimTrailingSlash(`${scheme}://${host}${basePath.startsWith("/") || basePath === "" ? basePath : `/${basePath}`}`);
}

/** Swagger 2.0 has host, basePath and schemes, no server variables: values set for them are said to be ignored. */
function noServerVariables({ n, serverVariables }: { n: Normalizer; serverVariables: ServerVariableInput | undefined }): void {
  for (const [name, { place }] of serverVariables?.values ?? []) {
    n.warn("unused-server-variable", "/swagger", `${place}: Swagger 2.0 documents have no server variables; {${name}} is ignored (use --base-url to change the server)`);
    serverVariables?.used.add(name); // said here; not again as unused
  }
}

interface RawParameter {
  raw: Record<string, unknown>;
  pointer: string;
}

function rawParameters(n: Normalizer, list: unknown, pointer: string): RawParameter[] {
  if (!Array.isArray(list)) return [];
  const result: RawParameter[] = [];
  list.forEach((raw, i) => {
    const resolved = n.deref(raw, joinPointer(pointer, i));
    if (!resolved) return;
    const p = resolved.value;
    if (typeof p.name !== "string" || !["path", "query", "header", "body", "formData"].includes(p.in as string)) {
      n.warn("invalid-parameter", resolved.pointer, `a parameter needs a name and 'in' of path, query, header, body or formData; skipped`);
      return;
    }
    result.push({ raw: p, pointer: resolved.pointer });
  });
  return result;
}

/** Path-level parameters, overridden by operation-level ones with the same location and name (any case for headers). */
function mergeRaw(pathLevel: RawParameter[], operationLevel: RawParameter[]): RawParameter[] {
  const key = ({ raw }: RawParameter): string => `${raw.in}:${raw.in === "header" ? String(raw.name).toLowerCase() : raw.name}`;
  const overridden = new Set(operationLevel.map(key));
  return [...pathLevel.filter((p) => !overridden.has(key(p))), ...operationLevel];
}

/** A non-body parameter: its own fields are its schema. */
function toParameter({ raw, pointer }: RawParameter): ApiParameter {
  const schema = Object.fromEntries(Object.entries(raw).filter(([key]) => !NOT_SCHEMA.has(key)));
  const description = text(raw.description);
  const [style, explode] = raw.type === "array" ? styleOf(raw) : [undefined, undefined];
  const location = raw.in as ParameterLocation;
  return {
    pointer,
    name: raw.name as string,
    in: location,
    required: raw.required === true,
    ...(description !== undefined ? { description } : {}),
    schema,
    schemaPointer: pointer,
    ...(style !== undefined ? { style: location === "query" ? style : "simple", explode: explode ?? false } : {}),
  };
}

function styleOf(raw: Record<string, unknown>): [string, boolean] {
  return COLLECTION_FORMATS[typeof raw.collectionFormat === "string" ? raw.collectionFormat : "csv"] ?? ["form", false];
}

function body({ all, consumes, pointer }: { all: RawParameter[]; consumes: string[]; pointer: string }): ApiRequestBody | undefined {
  const bodyParameter = all.find((p) => p.raw.in === "body");
  if (bodyParameter) {
    const description = text(bodyParameter.raw.description);
    return {
      pointer: bodyParameter.pointer,
      required: bodyParameter.raw.required === true,
      ...(description !== undefined ? { description } : {}),
      content: consumes.map((mediaType) => ({ mediaType, schema: bodyParameter.raw.schema ?? {}, schemaPointer: `${bodyParameter.pointer}/schema` })),
    };
  }
  const fields = all.filter((p) => p.raw.in === "formData");
  if (fields.length === 0) return undefined;
  const multipart = consumes.some((c) => c.toLowerCase().startsWith("multipart/form-data")) || fields.some((f) => f.raw.type === "file");
  const properties: Array<[string, unknown]> = [];
  const encoding: Array<[string, ApiEncoding]> = [];
  for (const field of fields) {
    const { schema } = toParameter(field);
    const description = text(field.raw.description);
    properties.push([field.raw.name as string, description ? { ...(schema as object), description } : schema]);
    if (field.raw.type === "array") {
      const [style, explode] = styleOf(field.raw);
      encoding.push([field.raw.name as string, { style, explode }]);
    }
  }
  const required = fields.filter((f) => f.raw.required === true).map((f) => f.raw.name as string);
  return {
    pointer,
    required: required.length > 0,
    content: [
      {
        mediaType: multipart ? "multipart/form-data" : "application/x-www-form-urlencoded",
        schema: { type: "object", properties: Object.fromEntries(properties), ...(required.length > 0 ? { required } : {}) },
        schemaPointer: `${pointer}/parameters`,
        ...(encoding.length > 0 ? { encoding: Object.fromEntries(encoding) } : {}),
      },
    ],
  };
}

function responses(n: Normalizer, value: unknown, pointer: string, produces: string[]): ApiResponse[] {
  if (!isObject(value)) return [];
  const result: ApiResponse[] = [];
  for (const [status, raw] of Object.entries(value)) {
    if (status.startsWith("x-")) continue;
    const resolved = n.deref(raw, joinPointer(pointer, status));
    if (!resolved) continue;
    const { value: response, pointer: at } = resolved;
    const description = text(response.description);
    result.push({
      status,
      pointer: at,
      ...(description !== undefined ? { description } : {}),
      content: response.schema === undefined ? [] : produces.map((mediaType) => ({ mediaType, schema: response.schema, schemaPointer: `${at}/schema` })),
    });
  }
  return result;
}

function securitySchemes(n: Normalizer): Record<string, ApiSecurityScheme> {
  const definitions = isObject(n.root.securityDefinitions) ? n.root.securityDefinitions : {};
  const result: Array<[string, ApiSecurityScheme]> = [];
  for (const [name, raw] of Object.entries(definitions)) {
    if (!isObject(raw)) continue;
    const description = text(raw.description);
    const base = description !== undefined ? { description } : {};
    if (raw.type === "basic") result.push([name, { ...base, type: "http", scheme: "basic" }]);
    else if (raw.type === "apiKey" && typeof raw.name === "string" && (raw.in === "header" || raw.in === "query")) {
      result.push([name, { ...base, type: "apiKey", in: raw.in, name: raw.name }]);
    } else if (raw.type === "oauth2") {
      const flow = raw.flow === "accessCode" ? "authorizationCode" : raw.flow === "application" ? "clientCredentials" : String(raw.flow);
      const tokenUrl = typeof raw.tokenUrl === "string" ? n.absoluteUrl(raw.tokenUrl) : "";
      const scopes = Object.keys(isObject(raw.scopes) ? raw.scopes : {});
      result.push([name, { ...base, type: "oauth2", flows: [flow], ...(flow === "clientCredentials" && tokenUrl ? { clientCredentials: { tokenUrl, scopes } } : {}) }]);
    } else {
      result.push([name, unsupportedScheme(`security definition type ${JSON.stringify(raw.type)} is not supported`, description)]);
    }
  }
  return Object.fromEntries(result);
}
