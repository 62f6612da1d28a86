// The `x-mcp` extension (schemas/x-mcp.schema.json), read alike from Swagger 2.0 and OpenAPI 3.x documents: on
// the document, a path item or an operation. `false` (or `exclude: true`) leaves out what is below it, `true` (or
// `exclude: false`) keeps it, and the nearest level that says so wins: `x-mcp: false` on the document and
// `x-mcp: true` on a few operations serves only those. Name, title, description, class, annotations and approval
// belong to one operation. A value of the wrong shape is an error naming its pointer, and is ignored.

import type { ApiAnnotationOverrides, ApiExcludedOperation, ApiToolOverrides } from "../../catalog/document.js";
import { TOOL_NAME_PATTERN } from "../../catalog/naming.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { SideEffect } from "../../catalog/types.js";
import { type Normalizer, stringList, text } from "./normalizer.js";

export type McpLevel = "document" | "path" | "operation";

/** One level's `x-mcp`, checked. */
export interface McpExtension {
  pointer: string;
  exclude?: boolean;
  /** Operation level only. */
  overrides?: ApiToolOverrides;
}

const FIELDS = ["exclude", "name", "title", "description", "effect", "annotations", "approval"];
const EFFECTS: SideEffect[] = ["read", "write", "destructive"];
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

export function readMcpExtension({
  n,
  owner,
  pointer,
  level,
}: {
  n: Normalizer;
  owner: Record<string, unknown>;
  pointer: string;
  level: McpLevel;
}): McpExtension | undefined {
  const value = owner["x-mcp"];
  if (value === undefined) return undefined;
  const at = `${pointer}/x-mcp`;
  if (typeof value === "boolean") return { pointer: at, exclude: !value };
  if (!isObject(value)) {
    n.error({
      code: "invalid-x-mcp",
      pointer: at,
      message: `x-mcp must be true, false or an object, not ${shown(value)}; ignored`,
    });
    return undefined;
  }
  const extension: McpExtension = { pointer: at };
  const overrides: ApiToolOverrides = { pointer: at };
  for (const [key, field] of Object.entries(value)) {
    const place = joinPointer(at, key);
    const bad = (expected: string): void =>
      n.error({
        code: "invalid-x-mcp",
        pointer: place,
        message: `x-mcp ${key} must be ${expected}, not ${shown(field)}; ignored`,
      });
    if (!FIELDS.includes(key)) {
      n.error({
        code: "invalid-x-mcp",
        pointer: place,
        message: `x-mcp has no field '${key}'; it takes ${FIELDS.join(", ")}`,
      });
    } else if (key === "exclude") {
      if (typeof field === "boolean") extension.exclude = field;
      else bad("true or false");
    } else if (level !== "operation") {
      n.warn({
        code: "x-mcp-misplaced",
        pointer: place,
        message: `x-mcp ${key} applies to one operation, not to a whole ${level === "path" ? "path item" : "document"}; ignored`,
      });
    } else if (key === "name") {
      if (typeof field === "string" && TOOL_NAME_PATTERN.test(field)) overrides.name = field;
      else bad("a tool name of 1 to 64 letters, digits, '_', '.' or '-'");
    } else if (key === "title" || key === "description") {
      if (typeof field === "string" && field.trim().length > 0) overrides[key] = field;
      else bad("a non-empty string");
    } else if (key === "effect") {
      if (EFFECTS.includes(field as SideEffect)) overrides.effect = field as SideEffect;
      else bad("read, write or destructive");
    } else if (key === "approval") {
      if (typeof field === "boolean") overrides.approval = field;
      else bad("true or false");
    } else {
      const annotations = readAnnotations({ n, value: field, pointer: place });
      if (annotations) overrides.annotations = annotations;
    }
  }
  checkClass({ n, overrides });
  if (Object.keys(overrides).length > 1) extension.overrides = overrides;
  return extension;
}

/** `x-*` keys of the Paths object are extensions, not paths; an `x-mcp` there is in the wrong place. */
export function isPathKey({ n, key }: { n: Normalizer; key: string }): boolean {
  if (!key.startsWith("x-")) return true;
  if (key === "x-mcp")
    n.warn({
      code: "x-mcp-misplaced",
      pointer: "/paths/x-mcp",
      message: "x-mcp is read on the document, a path item or an operation, not on the paths object; ignored",
    });
  return false;
}

/**
 * An operation's own `x-mcp`, read alike by every version. When it or a level above leaves the operation out, the
 * operation goes into `excludedOperations` and `excluded` is true: it is not normalized, so its other problems go
 * unreported.
 */
export function readOperationMcp({
  n,
  operation,
  where,
  above,
  excludedOperations,
}: {
  n: Normalizer;
  operation: Record<string, unknown>;
  where: Pick<ApiExcludedOperation, "pointer" | "method" | "path">;
  above: Array<McpExtension | undefined>;
  excludedOperations: ApiExcludedOperation[];
}): { mcp: McpExtension | undefined; excluded: boolean } {
  const mcp = readMcpExtension({ n, owner: operation, pointer: where.pointer, level: "operation" });
  const excludedAt = excludedBy([mcp, ...above]);
  if (excludedAt === undefined) return { mcp, excluded: false };
  const operationId = text(operation.operationId);
  excludedOperations.push({
    ...where,
    ...(operationId !== undefined ? { operationId } : {}),
    tags: stringList(operation.tags),
    excludedBy: excludedAt,
  });
  return { mcp, excluded: true };
}

/** The pointer of the `x-mcp` that leaves the operation out: the nearest level (operation first) that says. */
export function excludedBy(levels: Array<McpExtension | undefined>): string | undefined {
  const deciding = levels.find((level) => level?.exclude !== undefined);
  return deciding?.exclude ? deciding.pointer : undefined;
}

function readAnnotations({
  n,
  value,
  pointer,
}: {
  n: Normalizer;
  value: unknown;
  pointer: string;
}): ApiAnnotationOverrides | undefined {
  if (!isObject(value)) {
    n.error({
      code: "invalid-x-mcp",
      pointer,
      message: `x-mcp annotations must be an object, not ${shown(value)}; ignored`,
    });
    return undefined;
  }
  const result: ApiAnnotationOverrides = {};
  for (const [key, field] of Object.entries(value)) {
    const place = joinPointer(pointer, key);
    if (key === "title" && typeof field === "string" && field.trim().length > 0) result.title = field;
    else if ((HINTS as readonly string[]).includes(key) && typeof field === "boolean")
      result[key as (typeof HINTS)[number]] = field;
    else if (key === "title" || (HINTS as readonly string[]).includes(key)) {
      n.error({
        code: "invalid-x-mcp",
        pointer: place,
        message: `x-mcp annotations ${key} must be ${key === "title" ? "a non-empty string" : "true or false"}, not ${shown(field)}; ignored`,
      });
    } else
      n.error({
        code: "invalid-x-mcp",
        pointer: place,
        message: `x-mcp annotations have no field '${key}'; they take title, ${HINTS.join(", ")}`,
      });
  }
  return result;
}

/** readOnlyHint and destructiveHint state the class too: they must agree with each other and with `effect`. */
function checkClass({ n, overrides }: { n: Normalizer; overrides: ApiToolOverrides }): void {
  const { annotations, effect } = overrides;
  if (!annotations) return;
  const at = `${overrides.pointer}/annotations`;
  if (annotations.readOnlyHint === true && annotations.destructiveHint === true) {
    n.error({
      code: "x-mcp-contradiction",
      pointer: at,
      message: "x-mcp annotations: readOnlyHint and destructiveHint cannot both be true; both ignored",
    });
    delete annotations.readOnlyHint;
    delete annotations.destructiveHint;
  }
  if (effect === undefined) return;
  for (const [hint, holds] of [
    ["readOnlyHint", effect === "read"],
    ["destructiveHint", effect === "destructive"],
  ] as const) {
    if (annotations[hint] === undefined || annotations[hint] === holds) continue;
    n.error({
      code: "x-mcp-contradiction",
      pointer: `${at}/${hint}`,
      message: `x-mcp annotations ${hint}: ${annotations[hint]} contradicts effect: ${effect}; the hint is ignored`,
    });
    delete annotations[hint];
  }
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
