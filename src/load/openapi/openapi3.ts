// OpenAPI 3.0 and 3.1 into the version-neutral document.

import type { ApiDocument, ApiExcludedOperation, ApiEncoding, ApiMediaType, ApiOperation, ApiParameter, ApiRequestBody, ApiResponse, ApiSecurityScheme } from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { ParameterLocation } from "../../catalog/types.js";
import { extensions, METHOD_KEYS, type NormalizeInput, Normalizer, requirements, stringList, text, unsupportedScheme } from "./normalizer.js";
import { serverUrl } from "./servers.js";
import { isPathKey, readMcpExtension, readOperationMcp } from "./x-mcp.js";

const LOCATIONS = new Set<string>(["path", "query", "header", "cookie"]);

export function normalizeOpenApi3({ root, file, location, version, serverVariables }: NormalizeInput & { version: string }): ApiDocument {
  const n = new Normalizer(root, file, location, serverVariables);
  const info = isObject(root.info) ? root.info : {};
  const documentServer = serverUrl({ n, servers: root.servers, pointer: "/servers" }) ?? "";
  const documentSecurity = requirements(root.security) ?? [];
  const operations: ApiOperation[] = [];
  const excluded: ApiExcludedOperation[] = [];
  const documentMcp = readMcpExtension({ n, owner: root, pointer: "", level: "document" });
  const paths = isObject(root.paths) ? root.paths : {};
  if (!isObject(root.paths) && root.webhooks === undefined) n.warn("no-paths", "/paths", "the document has no paths, so there are no tools");

  for (const [key, rawItem] of Object.entries(paths)) {
    if (!isPathKey({ n, key })) continue;
    const item = n.deref(rawItem, joinPointer("/paths", key));
    if (!item) continue;
    const path = n.requestPath(key, joinPointer("/paths", key));
    const pathMcp = readMcpExtension({ n, owner: item.value, pointer: item.pointer, level: "path" });
    const pathServer = serverUrl({ n, servers: item.value.servers, pointer: `${item.pointer}/servers` }) ?? documentServer;
    const pathParameters = parameters(n, item.value.parameters, `${item.pointer}/parameters`);
    for (const [key, method] of METHOD_KEYS) {
      if (item.value[key] === undefined) continue;
      const pointer = joinPointer(item.pointer, key);
      const operation = item.value[key];
      if (!isObject(operation)) {
        n.warn("invalid-operation", pointer, "an operation must be an object; skipped");
        continue;
      }
      const { mcp, left } = readOperationMcp({ n, operation, where: { pointer, method, path }, above: [pathMcp, documentMcp], excluded });
      if (left) continue;
      const operationId = text(operation.operationId);
      const summary = text(operation.summary);
      const description = text(operation.description);
      const requestBody = operation.requestBody === undefined ? undefined : body(n, operation.requestBody, `${pointer}/requestBody`);
      operations.push({
        pointer,
        method,
        path,
        ...(operationId !== undefined ? { operationId } : {}),
        ...(summary !== undefined ? { summary } : {}),
        ...(description !== undefined ? { description } : {}),
        tags: stringList(operation.tags),
        deprecated: operation.deprecated === true,
        serverUrl: serverUrl({ n, servers: operation.servers, pointer: `${pointer}/servers` }) ?? pathServer,
        parameters: merge(pathParameters, parameters(n, operation.parameters, `${pointer}/parameters`)),
        ...(requestBody ? { requestBody } : {}),
        responses: responses(n, operation.responses, `${pointer}/responses`),
        security: requirements(operation.security) ?? documentSecurity,
        extensions: extensions(operation),
        ...(mcp?.overrides ? { mcp: mcp.overrides } : {}),
      });
    }
  }
  const format = `OpenAPI ${version}`;
  return {
    format,
    file,
    dialect: version.startsWith("3.0") ? "oas30" : "oas31",
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

function parameters(n: Normalizer, list: unknown, pointer: string): ApiParameter[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    n.warn("invalid-parameters", pointer, "parameters must be a list; ignored");
    return [];
  }
  const result: ApiParameter[] = [];
  list.forEach((raw, i) => {
    const resolved = n.deref(raw, joinPointer(pointer, i));
    if (!resolved) return;
    // A component parameter used by many operations is read once.
    let parameter = n.parameters.get(resolved.pointer);
    if (parameter === undefined) {
      parameter = readParameter(n, resolved.value, resolved.pointer);
      n.parameters.set(resolved.pointer, parameter);
    }
    if (parameter) result.push(parameter);
  });
  return result;
}

function readParameter(n: Normalizer, p: Record<string, unknown>, at: string): ApiParameter | null {
  if (typeof p.name !== "string" || typeof p.in !== "string" || !LOCATIONS.has(p.in)) {
    n.warn("invalid-parameter", at, `a parameter needs a name and 'in' of path, query, header or cookie (found in: ${JSON.stringify(p.in)}); skipped`);
    return null;
  }
  const parameter: ApiParameter = { pointer: at, name: p.name, in: p.in as ParameterLocation, required: p.required === true, schemaPointer: `${at}/schema` };
  let schema = p.schema;
  if (schema === undefined && isObject(p.content)) {
    const [mediaType, media] = Object.entries(p.content)[0] ?? [];
    if (mediaType !== undefined && isObject(media)) {
      parameter.contentType = mediaType;
      schema = media.schema;
      parameter.schemaPointer = `${joinPointer(at, "content", mediaType)}/schema`;
    }
  }
  // Optional fields are set only when present (assignments, not spreads: this runs for every parameter).
  const description = text(p.description);
  if (description !== undefined) parameter.description = description;
  if (p.deprecated === true) parameter.deprecated = true;
  if (schema !== undefined) parameter.schema = schema;
  if (typeof p.style === "string") parameter.style = p.style;
  if (typeof p.explode === "boolean") parameter.explode = p.explode;
  if (p.allowReserved === true) parameter.allowReserved = true;
  if (p.example !== undefined) parameter.example = p.example;
  return parameter;
}

/** Path-level parameters, overridden by operation-level ones with the same name and location. */
export function merge(pathLevel: ApiParameter[], operationLevel: ApiParameter[]): ApiParameter[] {
  const key = (p: ApiParameter): string => `${p.in}:${p.in === "header" ? p.name.toLowerCase() : p.name}`;
  const overridden = new Set(operationLevel.map(key));
  const seen = new Set<string>();
  const result: ApiParameter[] = [];
  for (const p of [...pathLevel.filter((p) => !overridden.has(key(p))), ...operationLevel]) {
    if (seen.has(key(p))) continue;
    seen.add(key(p));
    result.push(p);
  }
  return result;
}

function content(value: unknown, pointer: string): ApiMediaType[] {
  if (!isObject(value)) return [];
  const result: ApiMediaType[] = [];
  for (const [mediaType, raw] of Object.entries(value)) {
    if (!isObject(raw)) continue;
    const at = joinPointer(pointer, mediaType);
    const encoding = isObject(raw.encoding) ? encodings(raw.encoding) : undefined;
    result.push({
      mediaType,
      ...(raw.schema !== undefined ? { schema: raw.schema } : {}),
      schemaPointer: `${at}/schema`,
      ...(encoding ? { encoding } : {}),
      ...(raw.example !== undefined ? { example: raw.example } : {}),
    });
  }
  return result;
}

function encodings(value: Record<string, unknown>): Record<string, ApiEncoding> {
  const entries: Array<[string, ApiEncoding]> = [];
  for (const [name, raw] of Object.entries(value)) {
    if (!isObject(raw)) continue;
    entries.push([
      name,
      {
        ...(typeof raw.contentType === "string" ? { contentType: raw.contentType } : {}),
        ...(typeof raw.style === "string" ? { style: raw.style } : {}),
        ...(typeof raw.explode === "boolean" ? { explode: raw.explode } : {}),
        ...(typeof raw.allowReserved === "boolean" ? { allowReserved: raw.allowReserved } : {}),
      },
    ]);
  }
  return Object.fromEntries(entries);
}

function body(n: Normalizer, value: unknown, pointer: string): ApiRequestBody | undefined {
  const resolved = n.deref(value, pointer);
  if (!resolved) return undefined;
  const description = text(resolved.value.description);
  return {
    pointer: resolved.pointer,
    required: resolved.value.required === true,
    ...(description !== undefined ? { description } : {}),
    content: content(resolved.value.content, `${resolved.pointer}/content`),
  };
}

function responses(n: Normalizer, value: unknown, pointer: string): ApiResponse[] {
  if (!isObject(value)) return [];
  const result: ApiResponse[] = [];
  for (const [status, raw] of Object.entries(value)) {
    if (status.startsWith("x-")) continue;
    const resolved = n.deref(raw, joinPointer(pointer, status));
    if (!resolved) continue;
    const description = text(resolved.value.description);
    result.push({
      status,
      pointer: resolved.pointer,
      ...(description !== undefined ? { description } : {}),
      content: content(resolved.value.content, `${resolved.pointer}/content`),
    });
  }
  return result;
}

function securitySchemes(n: Normalizer): Record<string, ApiSecurityScheme> {
  const components = isObject(n.root.components) ? n.root.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const result: Array<[string, ApiSecurityScheme]> = [];
  for (const [name, raw] of Object.entries(schemes)) {
    const resolved = n.deref(raw, joinPointer("/components/securitySchemes", name));
    if (!resolved) continue;
    result.push([name, securityScheme(n, resolved.value)]);
  }
  return Object.fromEntries(result);
}

function securityScheme(n: Normalizer, s: Record<string, unknown>): ApiSecurityScheme {
  const description = text(s.description);
  const base = description !== undefined ? { description } : {};
  switch (s.type) {
    case "apiKey":
      if (typeof s.name === "string" && (s.in === "header" || s.in === "query" || s.in === "cookie")) return { ...base, type: "apiKey", in: s.in, name: s.name };
      return unsupportedScheme("an apiKey scheme needs a name and 'in' of header, query or cookie", description);
    case "http":
      return typeof s.scheme === "string" ? { ...base, type: "http", scheme: s.scheme } : unsupportedScheme("an http scheme needs 'scheme'", description);
    case "oauth2": {
      const flows = isObject(s.flows) ? s.flows : {};
      const clientCredentials = isObject(flows.clientCredentials) ? flows.clientCredentials : undefined;
      const tokenUrl = clientCredentials && typeof clientCredentials.tokenUrl === "string" ? n.absoluteUrl(clientCredentials.tokenUrl) : "";
      return {
        ...base,
        type: "oauth2",
        flows: Object.keys(flows),
        ...(tokenUrl ? { clientCredentials: { tokenUrl, scopes: Object.keys(isObject(clientCredentials?.scopes) ? clientCredentials.scopes : {}) } } : {}),
      };
    }
    case "openIdConnect":
      return { ...base, type: "openIdConnect" };
    case "mutualTLS":
      return unsupportedScheme("mutual TLS client certificates are not supported", description);
    default:
      return unsupportedScheme(`security scheme type ${JSON.stringify(s.type)} is not supported`, description);
  }
}
