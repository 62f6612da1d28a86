// The walk every version shares: each path item, then its operations in the order of METHOD_KEYS, each kept or left
// out by its `x-mcp`, with the fields all versions write alike (ids, texts, tags, security, extensions). What a version
// reads its own way (servers, parameters, bodies, responses, security schemes) it gives as a `VersionReader`.

import type {
  ApiDocument,
  ApiExcludedOperation,
  ApiOperation,
  ApiParameter,
  ApiRequestBody,
  ApiResponse,
  ApiSecurityScheme,
  SchemaDialect,
} from "../../catalog/document.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { HttpMethod } from "../../catalog/types.js";
import { extensions, type Located, type Normalizer, requirements, stringList, text } from "./normalizer.js";
import { isPathKey, type McpExtension, readMcpExtension, readOperationMcp } from "./x-mcp.js";

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

/** Where the walk is: the document's, and what its levels above the operation say. */
interface WalkState<PathItem> {
  n: Normalizer;
  reader: VersionReader<PathItem>;
  documentSecurity: Array<Record<string, string[]>>;
  documentMcp: McpExtension | undefined;
  operations: ApiOperation[];
  excludedOperations: ApiExcludedOperation[];
}

export function walkOperations<PathItem>({ n, reader }: { n: Normalizer; reader: VersionReader<PathItem> }): {
  operations: ApiOperation[];
  excluded: ApiExcludedOperation[];
} {
  const { root } = n;
  const state: WalkState<PathItem> = {
    n,
    reader,
    documentSecurity: requirements(root.security) ?? [],
    documentMcp: readMcpExtension({ n, owner: root, pointer: "", level: "document" }),
    operations: [],
    excludedOperations: [],
  };
  if (reader.warnsWithoutPaths && !isObject(root.paths) && root.webhooks === undefined) {
    n.warn({ code: "no-paths", pointer: "/paths", message: "the document has no paths, so there are no tools" });
  }
  const paths = isObject(root.paths) ? root.paths : {};
  for (const [key, rawItem] of Object.entries(paths)) walkPathItem({ state, key, rawItem });
  return { operations: state.operations, excluded: state.excludedOperations };
}

/** One path item's operations, in the order of the reader's methods. */
function walkPathItem<PathItem>({
  state,
  key,
  rawItem,
}: {
  state: WalkState<PathItem>;
  key: string;
  rawItem: unknown;
}): void {
  const { n, reader } = state;
  if (!isPathKey({ n, key })) return;
  const item = n.deref({ value: rawItem, pointer: joinPointer("/paths", key) });
  if (!item) return;
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
    const { mcp, excluded } = readOperationMcp({
      n,
      operation,
      where: { pointer, method, path },
      above: [pathMcp, state.documentMcp],
      excludedOperations: state.excludedOperations,
    });
    if (!excluded)
      state.operations.push(neutralOperation({ state, operation, where: { pointer, method, path }, pathItem, mcp }));
  }
}

/** The operation in the version-neutral form: the fields every version writes alike, and the reader's parts. */
function neutralOperation<PathItem>({
  state,
  operation,
  where: { pointer, method, path },
  pathItem,
  mcp,
}: {
  state: WalkState<PathItem>;
  operation: Record<string, unknown>;
  where: { pointer: string; method: HttpMethod; path: string };
  pathItem: PathItem;
  mcp: McpExtension | undefined;
}): ApiOperation {
  const operationId = text(operation.operationId);
  const summary = text(operation.summary);
  const description = text(operation.description);
  const { serverUrl, parameters, requestBody, responses } = state.reader.readOperation({
    operation,
    pointer,
    pathItem,
  });
  return {
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
    security: requirements(operation.security) ?? state.documentSecurity,
    extensions: extensions(operation),
    ...(mcp?.overrides ? { mcp: mcp.overrides } : {}),
  };
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
