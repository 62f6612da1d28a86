// The walk every version shares: each path item, then its operations in the order of METHOD_KEYS, each kept or left
// out by its `x-mcp`, with the fields all versions write alike (ids, texts, tags, security, extensions). What a version
// reads its own way (servers, parameters, bodies, responses, security schemes) it gives as a `VersionReader`.

import type { ApiDocument, ApiExcludedOperation, ApiOperation, ApiParameter, ApiRequestBody, ApiResponse, ApiSecurityScheme, SchemaDialect } from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { HttpMethod } from "../../catalog/types.js";
import { extensions, type Located, type Normalizer, requirements, stringList, text } from "./normalizer.js";
import { isPathKey, readMcpExtension, readOperationMcp } from "./x-mcp.js";

/** What a version reads its own way in one operation. */
export interface OperationParts {
  serverUrl: string;
  parameters: ApiParameter[];
  requestBody?: ApiRequestBody | undefined;
  responses: ApiResponse[];
}

export interface VersionReader<PathItem> {
  /** The operation keys the version has (Swagger 2.0 has no `trace`). */
  methods: Array<[string, HttpMethod]>;
  /** Whether a document without `paths` (nor `webhooks`) is warned about. */
  warnsWithoutPaths: boolean;
  /** What a path item gives each of its operations (servers, parameters). */
  readPathItem: (item: Located) => PathItem;
  readOperation: (input: { operation: Record<string, unknown>; pointer: string; pathItem: PathItem }) => OperationParts;
}

export function walkOperations<PathItem>({ n, reader }: { n: Normalizer; reader: VersionReader<PathItem> }): { operations: ApiOperation[]; excluded: ApiExcludedOperation[] } {
  const { root } = n;
  const documentSecurity = requirements(root.security) ?? [];
  const operations: ApiOperation[] = [];
  const excludedOperations: ApiExcludedOperation[] = [];
  const documentMcp = readMcpExtension({ n, owner: root, pointer: "", level: "document" });
  const paths = isObject(root.paths) ? root.paths : {};
  if (reader.warnsWithoutPaths && !isObject(root.paths) && root.webhooks === undefined) {
    n.warn({ code: "no-paths", pointer: "/paths", message: "the document has no paths, so there are no tools" });
  }
  for (const [key, rawItem] of Object.entries(paths)) {
    if (!isPathKey({ n, key })) continue;
    const item = n.deref({ value: rawItem, pointer: joinPointer("/paths", key) });
    if (!item) continue;
    const path = n.requestPath({ path: key, pointer: joinPointer("/paths", key) });
    const pathMcp = readMcpExtension({ n, owner: item.value, pointer: item.pointer, level: "path" });
    const pathItem = reader.readPathItem(item);
    for (const [key, method] of reader.methods) {
      if (item.value[key] === undefined) continue;
      const pointer = joinPointer(item.pointer, key);
      const operation = item.value[key];
      if (!isObject(operation)) {
        n.warn({ code: "invalid-operation", pointer, message: "an operation must be an object; skipped" });
        continue;
      }
      const { mcp, excluded } = readOperationMcp({ n, operation, where: { pointer, method, path }, above: [pathMcp, documentMcp], excludedOperations });
      if (excluded) continue;
      const operationId = text(operation.operationId);
      const summary = text(operation.summary);
      const description = text(operation.description);
      const { serverUrl, parameters, requestBody, responses } = reader.readOperation({ operation, pointer, pathItem });
      operations.push({
        pointer,
        method,
        path,
        ...(operationId !== undefined ? { operationId } : {}),
        ...(summary !== undefined ? { summary } : {}),
        ...(description !== undefined ? { description } : {}),
        tags: stringList(operation.tags),
        deprecated: operation.deprecated === true,
        serverUrl,
        parameters,
        ...(requestBody ? { requestBody } : {}),
        responses,
        security: requirements(operation.security) ?? documentSecurity,
        extensions: extensions(operation),
        ...(mcp?.overrides ? { mcp: mcp.overrides } : {}),
      });
    }
  }
  return { operations, excluded: excludedOperations };
}

/** The version-neutral document: the walk's operations with the document's info and security schemes. */
export function assembleDocument({
  n,
  format,
  dialect,
  walked: { operations, excluded },
  securitySchemes,
}: {
  n: Normalizer;
  format: string;
  dialect: SchemaDialect;
  walked: { operations: ApiOperation[]; excluded: ApiExcludedOperation[] };
  securitySchemes: Record<string, ApiSecurityScheme>;
}): ApiDocument {
  const info = isObject(n.root.info) ? n.root.info : {};
  const description = text(info.description);
  return {
    format,
    file: n.file,
    dialect,
    root: n.root,
    title: text(info.title) ?? "untitled",
    version: typeof info.version === "string" || typeof info.version === "number" ? String(info.version) : "",
    ...(description !== undefined ? { description } : {}),
    operations,
    ...(excluded.length > 0 ? { excluded } : {}),
    securitySchemes,
    diagnostics: n.diagnostics,
  };
}
