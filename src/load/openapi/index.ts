// An OpenAPI document of any supported version into the version-neutral form.

import type { ApiDocument } from "../../catalog/document.js";
import { UserError } from "../../catalog/errors.js";
import { normalizeOpenApi3 } from "./openapi3.js";
import type { NormalizeInput } from "./normalizer.js";
import { normalizeSwagger2 } from "./swagger2.js";

/** The document's version, or a clear refusal for one we do not read (OpenAPI 3.2, Swagger 1.2…). */
export function openApiVersion({ root, file }: { root: Record<string, unknown>; file: string }): "2.0" | `3.${string}` {
  if (root.swagger !== undefined) {
    if (String(root.swagger) === "2.0") return "2.0";
    throw unsupported(file, "/swagger", `Swagger ${String(root.swagger)}`);
  }
  const version = String(root.openapi);
  if (/^3\.[01]\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) return version as `3.${string}`;
  throw unsupported(file, "/openapi", `OpenAPI ${version}`);
}

export function normalizeOpenApi({ root, file, location, serverVariables }: NormalizeInput): ApiDocument {
  const version = openApiVersion({ root, file });
  return version === "2.0"
    ? normalizeSwagger2({ root, file, location, serverVariables })
    : normalizeOpenApi3({ root, file, location, version, serverVariables });
}

function unsupported(file: string, pointer: string, what: string): UserError {
  return new UserError({
    code: "E_UNSUPPORTED_VERSION",
    message: `${file}#${pointer}: ${what} is not supported; openapi-mcp reads Swagger 2.0, OpenAPI 3.0.x and OpenAPI 3.1.x`,
  });
}
