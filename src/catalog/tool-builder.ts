// The tool every kind of source builds. An OpenAPI operation and a custom action differ in how they find their
// inputs, output and class, not in how a tool is put together, described and reported on.

import type { CatalogBuilder } from "./builder.js";
import type {
  HttpMethod,
  JsonObjectSchema,
  ParameterBinding,
  ParameterLocation,
  RateLimit,
  Report,
  RequestBodyBinding,
  SecurityRequirement,
  SideEffect,
  Tool,
  ToolAnnotations,
} from "./types.js";

/** What a source found out about one tool. */
export interface ToolParts {
  name: string;
  title: string;
  description: string;
  inputs: {
    schema: JsonObjectSchema;
    parameters: Record<ParameterLocation, ParameterBinding[]>;
    body?: RequestBodyBinding | undefined;
  };
  output: { schema?: JsonObjectSchema | undefined; wrapped?: boolean | undefined; accept: string[] };
  effect: SideEffect;
  annotations: ToolAnnotations;
  approval: boolean | undefined;
  request: {
    method: HttpMethod;
    serverUrl: string;
    path: string;
    /** Static headers; none when empty. */
    headers?: Record<string, string> | undefined;
    security: SecurityRequirement[];
    rateLimit?: RateLimit | undefined;
  };
  source: string;
  origin: Tool["origin"];
}

/** Adds the tool to the catalog, each optional field present only when it says something. */
export function addSourceTool({ builder, parts }: { builder: CatalogBuilder; parts: ToolParts }): void {
  const { inputs, output, request } = parts;
  const { method, path, headers, rateLimit } = request;
  builder.addTool(
    {
      name: parts.name,
      title: parts.title,
      description: parts.description,
      inputSchema: inputs.schema,
      ...(output.schema ? { outputSchema: output.schema } : {}),
      ...(output.wrapped ? { outputWrapped: true } : {}),
      annotations: parts.annotations,
      effect: parts.effect,
      ...(parts.approval ? { approval: true } : {}),
      operation: {
        method,
        serverUrl: request.serverUrl,
        path,
        parameters: inputs.parameters,
        ...(inputs.body ? { body: inputs.body } : {}),
        ...(headers && Object.keys(headers).length > 0 ? { headers } : {}),
        accept: output.accept,
        security: request.security,
        ...(rateLimit ? { rateLimit } : {}),
      },
      source: parts.source,
      origin: parts.origin,
    },
    `${method} ${path}`,
  );
}

/** Reports a tool's problems under its file and name. */
export function toolReport({ builder, file, tool }: { builder: CatalogBuilder; file: string; tool: string }): Report {
  return (diagnostic) => {
    builder.diagnostics.push({ ...diagnostic, file, tool });
  };
}

/** The description the model reads; without one, the method and path stand in, and `missing` is warned. */
export function descriptionOr({
  description,
  request: { method, path },
  missing,
  report,
}: {
  description: string;
  request: { method: HttpMethod; path: string };
  missing: { pointer: string; message: string };
  report: Report;
}): string {
  if (description) return description;
  report({ severity: "warning", code: "missing-description", ...missing });
  return `${method} ${path}`;
}
