// One OpenAPI operation's tool: its arguments, output, description, class, credentials and rate limit.

import type { CatalogBuilder } from "./builder.js";
import { describeTool, inputObject, titleFor } from "./builder.js";
import type { ApiOperation } from "./document.js";
import { buildInputs, type InputCache } from "./inputs.js";
import type { NameChoice } from "./naming.js";
import type { OpenApiSource } from "./openapi-source.js";
import { buildOutput } from "./outputs.js";
import { parseRateLimit } from "./rate-limit.js";
import type { SchemaConverter } from "./schema/convert.js";
import { normalizeRequirements } from "./security.js";
import { addSourceTool, descriptionOr, toolReport } from "./tool-builder.js";
import { classAndAnnotations } from "./tool-overrides.js";
import type { CredentialScheme, RateLimit, Report, SecurityRequirement } from "./types.js";

export interface OperationCandidate {
  operation: ApiOperation;
  choice: NameChoice;
}

/** What every operation of a document shares about credentials. */
export interface DocumentAuth {
  credentials: Record<string, CredentialScheme>;
  credentialId: (schemeName: string) => string;
  /** `in:name` of parameters a credential fills in: never arguments. */
  credentialParameters: Set<string>;
  /** The requirement of every tool, when auth entries say what every tool sends. */
  givenRequirement?: SecurityRequirement[];
}

/** Adds the operation's tool; says which server URL it calls ("" when the document names none). */
export function addOperationTool({
  builder,
  source,
  candidate: { operation, choice },
  auth,
  converter,
  cache,
}: {
  builder: CatalogBuilder;
  source: OpenApiSource;
  candidate: OperationCandidate;
  auth: DocumentAuth;
  converter: SchemaConverter;
  cache: InputCache;
}): { serverUrl: string } {
  const { method, path } = operation;
  const file = source.document.file;
  const report = toolReport({ builder, file, tool: choice.name });
  if (choice.changes.includes("sanitized")) {
    report({
      severity: "warning",
      code: "name-sanitized",
      pointer: `${operation.pointer}/operationId`,
      message: `operationId '${operation.operationId}' is not a valid tool name; the tool is named '${choice.name}'`,
    });
  }
  if (choice.changes.includes("shortened")) {
    report({
      severity: "warning",
      code: "name-shortened",
      pointer: operation.pointer,
      message: `name shortened to 64 characters: '${choice.name}'`,
    });
  }
  const inputs = buildInputs({ operation, converter, cache, credentialParameters: auth.credentialParameters, report });
  const output = buildOutput({ responses: operation.responses, converter, definitions: builder.definitions });
  const description = descriptionOr({
    description: operation.mcp?.description ?? describeTool(operation),
    request: operation,
    missing: {
      pointer: operation.pointer,
      message: `${method} ${path} has no summary or description; the model sees only its name`,
    },
    report,
  });
  const title =
    operation.mcp?.title ??
    titleFor({ name: choice.name, ...(operation.summary !== undefined ? { summary: operation.summary } : {}) });
  const { effect, annotations } = classAndAnnotations({ operation, title });
  const serverUrl = source.baseUrl ?? operation.serverUrl;
  const security = auth.givenRequirement ?? operationSecurity({ operation, auth, report });
  const rateLimit = operationRateLimit({ operation, report });
  addSourceTool({
    builder,
    parts: {
      name: choice.name,
      title,
      description,
      inputs: { schema: inputObject(inputs), parameters: inputs.parameters, body: inputs.body },
      output,
      effect,
      annotations,
      approval: operation.mcp?.approval,
      request: { method, serverUrl, path, security, rateLimit },
      source: source.id,
      origin: {
        file,
        pointer: operation.pointer,
        tags: operation.tags,
        ...(operation.operationId !== undefined ? { operationId: operation.operationId } : {}),
      },
    },
  });
  return { serverUrl };
}

/** The operation's requirements as catalog credential ids; an alternative naming an undefined scheme is dropped. */
function operationSecurity({
  operation,
  auth,
  report,
}: {
  operation: ApiOperation;
  auth: DocumentAuth;
  report: Report;
}): SecurityRequirement[] {
  return normalizeRequirements({
    requirements: operation.security,
    known: auth.credentials,
    idOf: auth.credentialId,
    onUnknown: (name) =>
      report({
        severity: "warning",
        code: "unknown-security-scheme",
        pointer: operation.pointer,
        message: `security requirement names scheme '${name}', which is not defined; that alternative is ignored`,
      }),
  });
}

/** The operation's `x-rate-limit`, when it is one. */
function operationRateLimit({ operation, report }: { operation: ApiOperation; report: Report }): RateLimit | undefined {
  const value = operation.extensions["x-rate-limit"];
  if (value === undefined) return undefined;
  const parsed = parseRateLimit(value);
  if ("problem" in parsed) {
    report({
      severity: "warning",
      code: "invalid-rate-limit",
      pointer: `${operation.pointer}/x-rate-limit`,
      message: `x-rate-limit ignored: ${parsed.problem}`,
    });
    return undefined;
  }
  return parsed;
}
