// Tools from a version-neutral OpenAPI document: one per operation that its `x-mcp` keeps and the filters pass.

import type { CatalogBuilder, SourceSettings } from "./builder.js";
import { describeTool, inputObject, titleFor } from "./builder.js";
import type { ApiDocument, ApiOperation } from "./document.js";
import { buildInputs, inputCache } from "./inputs.js";
import type { NameChoice } from "./naming.js";
import { baseToolName, holdOwnNames } from "./naming.js";
import { buildOutput } from "./outputs.js";
import { parseRateLimit } from "./rate-limit.js";
import { applyAuthEntries, definedNames, everyToolRequirement } from "./auth.js";
import { credentialsFromDocument, normalizeRequirements } from "./security.js";
import { checkChosenNames, classAndAnnotations, requestedName } from "./tool-overrides.js";
import type { Diagnostic, RateLimit } from "./types.js";

export interface OpenApiSource extends SourceSettings {
  kind: "openapi";
  document: ApiDocument;
}

export function addOpenApiSource(builder: CatalogBuilder, source: OpenApiSource): void {
  const { document, id } = source;
  const file = document.file;
  builder.diagnostics.push(...document.diagnostics);
  const credentialId = (name: string): string => (id ? `${id}.${name}` : name);
  const envName = (name: string): string => (id ? `${id}_${name}` : name);
  // Schemes an auth entry defines anew are not read from the document (nor warned about).
  const redefined = definedNames(source.auth);
  const fromDocument = credentialsFromDocument({
    schemes: Object.fromEntries(Object.entries(document.securitySchemes).filter(([name]) => !redefined.has(name))),
    envName,
    ...(source.auth ? { overrides: source.auth } : {}),
    file,
  });
  const { credentials, everyTool, diagnostics } = applyAuthEntries({
    declared: fromDocument.credentials,
    declaredNames: Object.keys(document.securitySchemes),
    ...(source.auth ? { entries: source.auth } : {}),
    envName,
    file,
    ...(source.authPlace ? { place: source.authPlace } : {}),
  });
  builder.diagnostics.push(...fromDocument.diagnostics, ...diagnostics);
  for (const [name, credential] of Object.entries(credentials)) builder.addCredential(credentialId(name), credential);
  const givenRequirement = everyTool ? everyToolRequirement(everyTool, credentialId) : undefined;
  // Parameters that carry a credential (the document's own ones too, when auth entries replace them) are never arguments.
  const credentialParameters = new Set(
    [...Object.values(fromDocument.credentials), ...Object.values(credentials)].flatMap((c) => (c.type === "apiKey" ? [`${c.in}:${c.in === "header" ? c.parameter.toLowerCase() : c.parameter}`] : [])),
  );
  const converter = builder.schemaConverter({ root: document.root, dialect: document.dialect, file, id });
  builder.sources.push({
    id,
    kind: "openapi",
    format: document.format,
    title: document.title,
    version: document.version,
    location: file,
    ...(source.rateLimit ? { rateLimit: source.rateLimit } : {}),
  });

  // The document's own x-mcp exclusions come first; filters narrow what is left and never bring an operation back.
  for (const left of document.excluded ?? []) {
    const name = baseToolName({ method: left.method, path: left.path, namespace: id, ...(left.operationId !== undefined ? { operationId: left.operationId } : {}) }).name;
    builder.excludedBySource({
      item: { ...left, name },
      ...(source.filters ? { sourceFilters: source.filters } : {}),
      report: (filter, place) =>
        builder.diagnostics.push({ severity: "warning", code: "x-mcp-excluded", file, pointer: left.excludedBy, message: `${left.method} ${left.path} matches filter '${filter}' (${place}), but the document leaves it out with x-mcp; filters do not bring it back` }),
    });
  }
  const candidates: Array<{ operation: ApiOperation; choice: NameChoice }> = [];
  for (const operation of document.operations) {
    const choice = requestedName({ operation, namespace: id });
    const { method, path, tags, operationId } = operation;
    if (builder.accepts({ tags, name: choice.name, path, method, ...(operationId !== undefined ? { operationId } : {}) }, source.filters)) candidates.push({ operation, choice });
  }
  checkChosenNames({
    candidates,
    namespace: id,
    hold: (name, salt) => builder.holdName(name, salt),
    report: ({ operation }, message) => builder.diagnostics.push({ severity: "error", code: "x-mcp-name-taken", file, pointer: `${operation.mcp?.pointer}/name`, message }),
  });
  holdOwnNames({ candidates: candidates.map(({ operation, choice }) => ({ choice, salt: `${operation.method} ${operation.path}` })), hold: (name, salt) => builder.holdName(name, salt) });

  const cache = inputCache();
  let withoutServer = 0;
  for (const { operation, choice } of candidates) {
    const { method, path } = operation;
    const report = (d: Omit<Diagnostic, "file">): void => {
      builder.diagnostics.push({ ...d, file, tool: choice.name });
    };
    if (choice.changes.includes("sanitized")) {
      report({ severity: "warning", code: "name-sanitized", pointer: `${operation.pointer}/operationId`, message: `operationId '${operation.operationId}' is not a valid tool name; the tool is named '${choice.name}'` });
    }
    if (choice.changes.includes("shortened")) {
      report({ severity: "warning", code: "name-shortened", pointer: operation.pointer, message: `name shortened to 64 characters: '${choice.name}'` });
    }
    const inputs = buildInputs({ operation, converter, cache, credentialParameters, report });
    const output = buildOutput({ responses: operation.responses, converter, definitions: builder.definitions });
    let description = operation.mcp?.description ?? describeTool(operation);
    if (!description) {
      report({ severity: "warning", code: "missing-description", pointer: operation.pointer, message: `${method} ${path} has no summary or description; the model sees only its name` });
      description = `${method} ${path}`;
    }
    const title = operation.mcp?.title ?? titleFor({ name: choice.name, ...(operation.summary !== undefined ? { summary: operation.summary } : {}) });
    const { effect, annotations } = classAndAnnotations({ operation, title });
    const serverUrl = source.baseUrl ?? operation.serverUrl;
    if (!serverUrl) withoutServer++;
    const security = givenRequirement ?? normalizeRequirements({
      requirements: operation.security,
      known: credentials,
      idOf: credentialId,
      onUnknown: (name) => report({ severity: "warning", code: "unknown-security-scheme", pointer: operation.pointer, message: `security requirement names scheme '${name}', which is not defined; that alternative is ignored` }),
    });
    const rateLimit = operationRateLimit(operation.extensions["x-rate-limit"], operation.pointer, report);
    builder.addTool(
      {
        name: choice.name,
        title,
        description,
        inputSchema: inputObject(inputs.properties, inputs.required),
        ...(output.schema ? { outputSchema: output.schema } : {}),
        ...(output.wrapped ? { outputWrapped: true } : {}),
        annotations,
        effect,
        ...(operation.mcp?.approval ? { approval: true } : {}),
        operation: {
          method,
          serverUrl,
          path,
          parameters: inputs.parameters,
          ...(inputs.body ? { body: inputs.body } : {}),
          accept: output.accept,
          security,
          ...(rateLimit ? { rateLimit } : {}),
        },
        source: id,
        origin: { file, pointer: operation.pointer, tags: operation.tags, ...(operation.operationId !== undefined ? { operationId: operation.operationId } : {}) },
      },
      `${method} ${path}`,
    );
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

function operationRateLimit(value: unknown, pointer: string, report: (d: Omit<Diagnostic, "file">) => void): RateLimit | undefined {
  if (value === undefined) return undefined;
  const parsed = parseRateLimit(value);
  if ("problem" in parsed) {
    report({ severity: "warning", code: "invalid-rate-limit", pointer: `${pointer}/x-rate-limit`, message: `x-rate-limit ignored: ${parsed.problem}` });
    return undefined;
  }
  return parsed;
}
