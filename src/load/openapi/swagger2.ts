// Swagger 2.0 into the version-neutral document: host/basePath/schemes become a server URL, the `body` parameter
// and `formData` fields become a request body, consumes/produces become media types, collectionFormat becomes
// style and explode.

import type {
  ApiDocument,
  ApiEncoding,
  ApiMediaType,
  ApiParameter,
  ApiRequestBody,
  ApiSecurityScheme,
} from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { ParameterLocation } from "../../catalog/types.js";
import { isUrl } from "../../catalog/url.js";
import {
  type Located,
  METHOD_KEYS,
  type NormalizeInput,
  Normalizer,
  stringList,
  text,
  trimTrailingSlash,
  unsupportedScheme,
} from "./normalizer.js";
import { firstOfEach, parameterKey, readResponses, withPathLevel } from "./operation-parts.js";
import type { ServerVariableInput } from "./server-variable-input.js";
import { assembleDocument, walkOperations } from "./walk.js";

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
  const n = new Normalizer({ root, file, location });
  const server = serverUrl(n);
  noServerVariables({ n, serverVariables });
  const consumesAll = stringList(root.consumes);
  const producesAll = stringList(root.produces);
  const walked = walkOperations<RawParameter[]>({
    n,
    reader: {
      methods: METHOD_KEYS.filter(([key]) => key !== "trace"),
      warnsWithoutPaths: false,
      readPathItem: (item) => rawParameters({ n, list: item.value.parameters, pointer: `${item.pointer}/parameters` }),
      readOperation: ({ operation, pointer, pathItem }) => {
        const consumes = mediaTypes({ listed: operation.consumes, documentLevel: consumesAll });
        const produces = mediaTypes({ listed: operation.produces, documentLevel: producesAll });
        const all = withPathLevel({
          pathLevel: pathItem,
          operationLevel: rawParameters({ n, list: operation.parameters, pointer: `${pointer}/parameters` }),
          key: rawKey,
        });
        const parameters = all.filter((p) => p.raw.in !== "body" && p.raw.in !== "formData").map(toParameter);
        return {
          requestBody: body({ all, consumes, pointer }),
          serverUrl: server,
          parameters: firstOfEach(parameters),
          responses: readResponses({
            n,
            value: operation.responses,
            pointer: `${pointer}/responses`,
            content: (response) => responseContent({ response, produces }),
          }),
        };
      },
    },
  });
  return assembleDocument({ n, format: "Swagger 2.0", dialect: "oas2", walked, securitySchemes: securitySchemes(n) });
}

/** The operation's media types, else the document's, else JSON. */
function mediaTypes({ listed, documentLevel }: { listed: unknown; documentLevel: string[] }): string[] {
  const own = stringList(listed);
  return own.length > 0 ? own : documentLevel.length > 0 ? documentLevel : ["application/json"];
}

function serverUrl(n: Normalizer): string {
  const host = text(n.root.host);
  const basePath = text(n.root.basePath) ?? "";
  const schemes = stringList(n.root.schemes).map((s) => s.toLowerCase());
  if (!host) return trimTrailingSlash(n.absoluteUrl(basePath || "/"));
  // Without `schemes`, the scheme is the one the document was fetched with; https for a local file.
  const scheme = schemes.includes("https")
    ? "https"
    : (schemes[0] ?? (isUrl(n.location) ? new URL(n.location).protocol.slice(0, -1) : "https"));
  return trimTrailingSlash(
    `${scheme}://${host}${basePath.startsWith("/") || basePath === "" ? basePath : `/${basePath}`}`,
  );
}

/** Swagger 2.0 has host, basePath and schemes, no server variables: values set for them are said to be ignored. */
function noServerVariables({
  n,
  serverVariables,
}: {
  n: Normalizer;
  serverVariables: ServerVariableInput | undefined;
}): void {
  for (const [name, { place }] of serverVariables?.values ?? []) {
    n.warn({
      code: "unused-server-variable",
      pointer: "/swagger",
      message: `${place}: Swagger 2.0 documents have no server variables; {${name}} is ignored (use --base-url to change the server)`,
    });
    serverVariables?.used.add(name); // said here; not again as unused
  }
}

interface RawParameter {
  raw: Record<string, unknown>;
  pointer: string;
}

function rawParameters({ n, list, pointer }: { n: Normalizer; list: unknown; pointer: string }): RawParameter[] {
  if (!Array.isArray(list)) return [];
  const result: RawParameter[] = [];
  list.forEach((raw, i) => {
    const resolved = n.deref({ value: raw, pointer: joinPointer(pointer, i) });
    if (!resolved) return;
    const p = resolved.value;
    if (typeof p.name !== "string" || !["path", "query", "header", "body", "formData"].includes(p.in as string)) {
      n.warn({
        code: "invalid-parameter",
        pointer: resolved.pointer,
        message: `a parameter needs a name and 'in' of path, query, header, body or formData; skipped`,
      });
      return;
    }
    result.push({ raw: p, pointer: resolved.pointer });
  });
  return result;
}

/** Raw parameters are told apart as read ones are (rawParameters checked their name and location). */
function rawKey({ raw }: RawParameter): string {
  return parameterKey({ in: raw.in as string, name: raw.name as string });
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

function body({
  all,
  consumes,
  pointer,
}: {
  all: RawParameter[];
  consumes: string[];
  pointer: string;
}): ApiRequestBody | undefined {
  const bodyParameter = all.find((p) => p.raw.in === "body");
  if (bodyParameter) {
    const description = text(bodyParameter.raw.description);
    return {
      pointer: bodyParameter.pointer,
      required: bodyParameter.raw.required === true,
      ...(description !== undefined ? { description } : {}),
      content: consumes.map((mediaType) => ({
        mediaType,
        schema: bodyParameter.raw.schema ?? {},
        schemaPointer: `${bodyParameter.pointer}/schema`,
      })),
    };
  }
  const fields = all.filter((p) => p.raw.in === "formData");
  if (fields.length === 0) return undefined;
  const multipart =
    consumes.some((c) => c.toLowerCase().startsWith("multipart/form-data")) ||
    fields.some((f) => f.raw.type === "file");
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
        schema: {
          type: "object",
          properties: Object.fromEntries(properties),
          ...(required.length > 0 ? { required } : {}),
        },
        schemaPointer: `${pointer}/parameters`,
        ...(encoding.length > 0 ? { encoding: Object.fromEntries(encoding) } : {}),
      },
    ],
  };
}

/** Swagger 2.0 gives a response one schema, sent as each media type the operation produces. */
function responseContent({
  response: { value: response, pointer },
  produces,
}: {
  response: Located;
  produces: string[];
}): ApiMediaType[] {
  return response.schema === undefined
    ? []
    : produces.map((mediaType) => ({ mediaType, schema: response.schema, schemaPointer: `${pointer}/schema` }));
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
      const flow =
        raw.flow === "accessCode"
          ? "authorizationCode"
          : raw.flow === "application"
            ? "clientCredentials"
            : String(raw.flow);
      const tokenUrl = typeof raw.tokenUrl === "string" ? n.absoluteUrl(raw.tokenUrl) : "";
      const scopes = Object.keys(isObject(raw.scopes) ? raw.scopes : {});
      result.push([
        name,
        {
          ...base,
          type: "oauth2",
          flows: [flow],
          ...(flow === "clientCredentials" && tokenUrl ? { clientCredentials: { tokenUrl, scopes } } : {}),
          ...(flow === "authorizationCode" && tokenUrl && typeof raw.authorizationUrl === "string"
            ? { authorizationCode: { authorizationUrl: n.absoluteUrl(raw.authorizationUrl), tokenUrl } }
            : {}),
        },
      ]);
    } else {
      result.push([
        name,
        unsupportedScheme({
          reason: `security definition type ${JSON.stringify(raw.type)} is not supported`,
          description,
        }),
      ]);
    }
  }
  return Object.fromEntries(result);
}
