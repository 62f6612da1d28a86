// Tools from a version-neutral OpenAPI document: one per operation that its `x-mcp` keeps and the filters pass.

import { addSourceCredentials, credentialIds, definedNames, envNames, everyToolRequirement } from "./auth.js";
import type { CatalogBuilder } from "./builder.js";
import { inputCache } from "./inputs.js";
import { baseToolName, holdOwnNames } from "./naming.js";
import type { OpenApiSource } from "./openapi-source.js";
import { addOperationTool, type DocumentAuth, type OperationCandidate } from "./operation-tool.js";
import { credentialsFromDocument } from "./security.js";
import { checkChosenNames, requestedName } from "./tool-overrides.js";

export function addOpenApiSource(builder: CatalogBuilder, source: OpenApiSource): void {
  const { document, id } = source;
  const file = document.file;
  builder.diagnostics.push(...document.diagnostics);
  const auth = documentAuth({ builder, source });
  const converter = builder.schemaConverter({ root: document.root, dialect: document.dialect, file, id });
  builder.sources.push({
    id,
    kind: "openapi",
    format: document.format,
    title: document.title,
    version: document.version,
    location: file,
    ...(source.rateLimit ? { rateLimit: source.rateLimit } : {}),
    ...(source.inFlight ? { inFlight: source.inFlight } : {}),
  });
  reportExcluded({ builder, source });
  const cache = inputCache();
  let withoutServer = 0;
  for (const candidate of acceptedOperations({ builder, source })) {
    const { serverUrl } = addOperationTool({ builder, source, candidate, auth, converter, cache });
    if (!serverUrl) withoutServer++;
  }
  if (withoutServer > 0) {
    builder.diagnostics.push({
      severity: "warning",
      code: "no-server-url",
      message: `${file} names no absolute server URL for ${withoutServer} operation(s); give one with --base-url${id ? ` (or baseUrl for source '${id}')` : ""}`,
      file,
    });
  }
}

/** The document's security schemes with the source's auth entries applied, added to the catalog. */
function documentAuth({ builder, source }: { builder: CatalogBuilder; source: OpenApiSource }): DocumentAuth {
  const { document, id } = source;
  const credentialId = credentialIds(id);
  // Schemes an auth entry defines anew are not read from the document (nor warned about).
  const redefined = definedNames(source.auth);
  const fromDocument = credentialsFromDocument({
    schemes: Object.fromEntries(Object.entries(document.securitySchemes).filter(([name]) => !redefined.has(name))),
    envName: envNames(id),
    ...(source.auth ? { overrides: source.auth } : {}),
    file: document.file,
  });
  builder.diagnostics.push(...fromDocument.diagnostics);
  const { credentials, everyTool } = addSourceCredentials({
    builder,
    source,
    file: document.file,
    declared: fromDocument.credentials,
    declaredNames: Object.keys(document.securitySchemes),
  });
  // Parameters that carry a credential (the document's own ones too, when auth entries replace them) are never arguments.
  const credentialParameters = new Set(
    [...Object.values(fromDocument.credentials), ...Object.values(credentials)].flatMap((c) =>
      c.type === "apiKey" ? [`${c.in}:${c.in === "header" ? c.parameter.toLowerCase() : c.parameter}`] : [],
    ),
  );
  return {
    credentials,
    credentialId,
    credentialParameters,
    ...(everyTool ? { givenRequirement: everyToolRequirement(everyTool, credentialId) } : {}),
  };
}

/** The document's own x-mcp exclusions come first; filters narrow what is left and never bring an operation back. */
function reportExcluded({ builder, source }: { builder: CatalogBuilder; source: OpenApiSource }): void {
  const { document, id } = source;
  for (const excluded of document.excluded ?? []) {
    const { method, path, operationId } = excluded;
    const name = baseToolName({
      method,
      path,
      namespace: id,
      ...(operationId !== undefined ? { operationId } : {}),
    }).name;
    builder.excludedBySource({
      item: { ...excluded, name },
      ...(source.filters ? { sourceFilters: source.filters } : {}),
      report: (filter, place) =>
        builder.diagnostics.push({
          severity: "warning",
          code: "x-mcp-excluded",
          file: document.file,
          pointer: excluded.excludedBy,
          message: `${method} ${path} matches filter '${filter}' (${place}), but the document leaves it out with x-mcp; filters do not bring it back`,
        }),
    });
  }
}

/** The operations the filters pass, each with its tool's name: names the authors chose are checked and held first. */
function acceptedOperations({
  builder,
  source,
}: {
  builder: CatalogBuilder;
  source: OpenApiSource;
}): OperationCandidate[] {
  const { document, id } = source;
  const candidates: OperationCandidate[] = [];
  for (const operation of document.operations) {
    const choice = requestedName({ operation, namespace: id });
    const { method, path, tags, operationId } = operation;
    if (
      builder.accepts(
        { tags, name: choice.name, path, method, ...(operationId !== undefined ? { operationId } : {}) },
        source.filters,
      )
    )
      candidates.push({ operation, choice });
  }
  const hold = (name: string, salt: string): boolean => builder.holdName(name, salt);
  checkChosenNames({
    candidates,
    namespace: id,
    hold,
    report: ({ operation }, message) =>
      builder.diagnostics.push({
        severity: "error",
        code: "x-mcp-name-taken",
        file: document.file,
        pointer: `${operation.mcp?.pointer}/name`,
        message,
      }),
  });
  holdOwnNames({
    candidates: candidates.map(({ operation, choice }) => ({ choice, salt: `${operation.method} ${operation.path}` })),
    hold,
  });
  return candidates;
}
