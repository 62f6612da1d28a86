// OpenAPI 3.0 and 3.1 into the version-neutral document: what they say their own way (`servers` at three levels,
// parameters with `in: cookie` or `content`, `requestBody` and response `content` by media type, and
// `components.securitySchemes`); the walk itself is walk.ts's.

import type {
  ApiDocument,
  ApiEncoding,
  ApiMediaType,
  ApiParameter,
  ApiRequestBody,
  ApiSecurityScheme,
} from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { AuthorizationCodeFlow, ParameterLocation } from "../../catalog/types.js";
import { type Located, METHOD_KEYS, type NormalizeInput, Normalizer, text, unsupportedScheme } from "./normalizer.js";
import { mergeParameters, readResponses } from "./operation-parts.js";
import { serverUrl } from "./servers.js";
import { assembleDocument, walkOperations } from "./walk.js";

const LOCATIONS = new Set<string>(["path", "query", "header", "cookie"]);

export function normalizeOpenApi3(input: NormalizeInput & { version: string }): ApiDocument {
  const n = new Normalizer(input);
  const documentServer = serverUrl({ n, servers: n.root.servers, pointer: "/servers" }) ?? "";
  const walked = walkOperations<{ server: string; parameters: ApiParameter[] }>({
    n,
    reader: {
      methods: METHOD_KEYS,
      warnsWithoutPaths: true,
      readPathItem: (item) => ({
        server: serverUrl({ n, servers: item.value.servers, pointer: `${item.pointer}/servers` }) ?? documentServer,
        parameters: parameters({ n, list: item.value.parameters, pointer: `${item.pointer}/parameters` }),
      }),
      readOperation: ({ operation, pointer, pathItem }) => ({
        requestBody:
          operation.requestBody === undefined
            ? undefined
            : body({ n, value: operation.requestBody, pointer: `${pointer}/requestBody` }),
        serverUrl: serverUrl({ n, servers: operation.servers, pointer: `${pointer}/servers` }) ?? pathItem.server,
        parameters: mergeParameters({
          pathLevel: pathItem.parameters,
          operationLevel: parameters({ n, list: operation.parameters, pointer: `${pointer}/parameters` }),
        }),
        responses: readResponses({
          n,
          value: operation.responses,
          pointer: `${pointer}/responses`,
          content: (response) => content({ value: response.value.content, pointer: `${response.pointer}/content` }),
        }),
      }),
    },
  });
  const { version } = input;
  return assembleDocument({
    n,
    format: `OpenAPI ${version}`,
    dialect: version.startsWith("3.0") ? "oas30" : "oas31",
    walked,
    securitySchemes: securitySchemes({ n, server: documentServer }),
  });
}

function parameters({ n, list, pointer }: { n: Normalizer; list: unknown; pointer: string }): ApiParameter[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    n.warn({ code: "invalid-parameters", pointer, message: "parameters must be a list; ignored" });
    return [];
  }
  const result: ApiParameter[] = [];
  list.forEach((raw, i) => {
    const resolved = n.deref({ value: raw, pointer: joinPointer(pointer, i) });
    if (!resolved) return;
    // A component parameter used by many operations is read once.
    let parameter = n.parameters.get(resolved.pointer);
    if (parameter === undefined) {
      parameter = readParameter({ n, parameter: resolved });
      n.parameters.set(resolved.pointer, parameter);
    }
    if (parameter) result.push(parameter);
  });
  return result;
}

function readParameter({
  n,
  parameter: { value: p, pointer: at },
}: {
  n: Normalizer;
  parameter: Located;
}): ApiParameter | null {
  if (typeof p.name !== "string" || typeof p.in !== "string" || !LOCATIONS.has(p.in)) {
    n.warn({
      code: "invalid-parameter",
      pointer: at,
      message: `a parameter needs a name and 'in' of path, query, header or cookie (found in: ${JSON.stringify(p.in)}); skipped`,
    });
    return null;
  }
  const parameter: ApiParameter = {
    pointer: at,
    name: p.name,
    in: p.in as ParameterLocation,
    required: p.required === true,
    schemaPointer: `${at}/schema`,
  };
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

function content({ value, pointer }: { value: unknown; pointer: string }): ApiMediaType[] {
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

function body({ n, value, pointer }: { n: Normalizer; value: unknown; pointer: string }): ApiRequestBody | undefined {
  const resolved = n.deref({ value, pointer });
  if (!resolved) return undefined;
  const description = text(resolved.value.description);
  return {
    pointer: resolved.pointer,
    required: resolved.value.required === true,
    ...(description !== undefined ? { description } : {}),
    content: content({ value: resolved.value.content, pointer: `${resolved.pointer}/content` }),
  };
}

/** `server`: the document's server URL, against which OAuth URLs that are relative references resolve (OAS 3 §4.3). */
function securitySchemes({ n, server }: { n: Normalizer; server: string }): Record<string, ApiSecurityScheme> {
  const components = isObject(n.root.components) ? n.root.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const result: Array<[string, ApiSecurityScheme]> = [];
  for (const [name, raw] of Object.entries(schemes)) {
    const resolved = n.deref({ value: raw, pointer: joinPointer("/components/securitySchemes", name) });
    if (!resolved) continue;
    result.push([name, securityScheme({ n, scheme: resolved.value, server })]);
  }
  return Object.fromEntries(result);
}

function securityScheme({
  n,
  scheme: s,
  server,
}: {
  n: Normalizer;
  scheme: Record<string, unknown>;
  server: string;
}): ApiSecurityScheme {
  const oauthUrl = (url: string): string => n.absoluteUrl(url, { against: server });
  const description = text(s.description);
  const base = description !== undefined ? { description } : {};
  switch (s.type) {
    case "apiKey":
      if (typeof s.name === "string" && (s.in === "header" || s.in === "query" || s.in === "cookie"))
        return { ...base, type: "apiKey", in: s.in, name: s.name };
      return unsupportedScheme({
        reason: "an apiKey scheme needs a name and 'in' of header, query or cookie",
        description,
      });
    case "http":
      return typeof s.scheme === "string"
        ? { ...base, type: "http", scheme: s.scheme }
        : unsupportedScheme({ reason: "an http scheme needs 'scheme'", description });
    case "oauth2": {
      const flows = isObject(s.flows) ? s.flows : {};
      const clientCredentials = isObject(flows.clientCredentials) ? flows.clientCredentials : undefined;
      const tokenUrl =
        clientCredentials && typeof clientCredentials.tokenUrl === "string" ? oauthUrl(clientCredentials.tokenUrl) : "";
      const code = authorizationCodeFlow(
        isObject(flows.authorizationCode) ? flows.authorizationCode : undefined,
        oauthUrl,
      );
      return {
        ...base,
        type: "oauth2",
        flows: Object.keys(flows),
        ...(code ? { authorizationCode: code } : {}),
        ...(tokenUrl
          ? {
              clientCredentials: {
                tokenUrl,
                scopes: Object.keys(isObject(clientCredentials?.scopes) ? clientCredentials.scopes : {}),
              },
            }
          : {}),
      };
    }
    case "openIdConnect":
      return { ...base, type: "openIdConnect" };
    case "mutualTLS":
      return unsupportedScheme({ reason: "mutual TLS client certificates are not supported", description });
    default:
      return unsupportedScheme({
        reason: `security scheme type ${JSON.stringify(s.type)} is not supported`,
        description,
      });
  }
}

/** An authorization code flow with both URLs, made absolute by `absolute`; else none. */
function authorizationCodeFlow(
  flow: Record<string, unknown> | undefined,
  absolute: (url: string) => string,
): AuthorizationCodeFlow | undefined {
  if (typeof flow?.authorizationUrl !== "string" || typeof flow.tokenUrl !== "string") return undefined;
  return {
    authorizationUrl: absolute(flow.authorizationUrl),
    tokenUrl: absolute(flow.tokenUrl),
    ...(typeof flow.refreshUrl === "string" ? { refreshUrl: absolute(flow.refreshUrl) } : {}),
  };
}
