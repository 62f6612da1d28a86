// Tool names: what MCP clients accept (`[A-Za-z0-9_.-]`, at most 64 characters), derived deterministically so the
// same document gives the same names on every run.

import { createHash } from "node:crypto";

export const MAX_TOOL_NAME_LENGTH = 64;
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
const VALID_CHARACTERS = /^[A-Za-z0-9_.-]+$/;
/** Between a manifest source's id and the tool's own name: `cars__search_cars`. */
export const NAMESPACE_SEPARATOR = "__";

export function shortHash(text: string, length = 8): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** Runs of characters a tool name may not hold become one `_`; `_` at either end is trimmed. */
export function sanitizeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "");
}

/** `GET /pets/{petId}/toys` → `get_pets_petId_toys`. */
export function nameFromRoute({ method, path }: { method: string; path: string }): string {
  const words = path
    .split("/")
    .map((segment) => sanitizeName(segment.replace(/[{}]/g, "")))
    .filter((word) => word.length > 0);
  return [method.toLowerCase(), ...(words.length > 0 ? words : ["root"])].join("_");
}

/** Names longer than the limit keep their start and end in a hash of the whole name, so they stay distinct. */
export function fitName(name: string, max = MAX_TOOL_NAME_LENGTH): string {
  if (name.length <= max) return name;
  const hash = shortHash(name);
  return `${name.slice(0, max - hash.length - 1).replace(/[_.-]+$/, "")}_${hash}`;
}

export interface NameChoice {
  name: string;
  /** How the name differs from the operationId, for warnings. */
  changes: Array<"derived" | "sanitized" | "shortened">;
}

/** The name an operation asks for, before uniqueness: its operationId when valid, else something close to it. */
export function baseToolName({
  operationId,
  method,
  path,
  namespace = "",
}: {
  operationId?: string;
  method: string;
  path: string;
  namespace?: string;
}): NameChoice {
  const changes: NameChoice["changes"] = [];
  // Valid characters but too long is "shortened" below, not "sanitized".
  let name = operationId !== undefined && VALID_CHARACTERS.test(operationId) ? operationId : "";
  if (!name && operationId) {
    name = sanitizeName(operationId);
    if (name) changes.push("sanitized");
  }
  if (!name) {
    name = nameFromRoute({ method, path });
    changes.push("derived");
  }
  const full = namespace ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;
  const fitted = fitName(full);
  if (fitted !== full) changes.push("shortened");
  return { name: fitted, changes };
}

/**
 * Holds, for each operation, the name its own valid id gives it unchanged, so that no name derived, sanitized or
 * shortened for another operation takes it first (`list items` → `list_items` must not push the operation whose id
 * is `list_items` to `list_items_836d`). Of two operations with the same id the first holds it. Called after the
 * authors' chosen (`x-mcp`) names are held, which keep their priority.
 */
export function holdOwnNames({
  candidates,
  hold,
}: {
  candidates: Array<{ choice: NameChoice; salt: string }>;
  hold: (name: string, salt: string) => boolean;
}): void {
  for (const { choice, salt } of candidates) if (choice.changes.length === 0) hold(choice.name, salt);
}

/**
 * Hands out names unique within one server; the first in document order keeps the name it asked for, except that a
 * name held beforehand for one operation (its `x-mcp` name, then its own valid id) goes to that operation.
 */
export class NameRegistry {
  private readonly taken = new Set<string>();
  /** Held names, by the salt of the operation they are held for. */
  private readonly held = new Map<string, string>();

  /** Holds `name` for the operation `salt`; false when another tool has it or it is held already. */
  hold(name: string, salt: string): boolean {
    if (this.taken.has(name) || this.held.has(name)) return false;
    this.held.set(name, salt);
    return true;
  }

  /** `salt` tells operations apart (their method and path), so a renamed duplicate gets the same name each run. */
  claim(name: string, salt: string): { name: string; renamed: boolean } {
    if (this.free(name, salt)) {
      this.taken.add(name);
      return { name, renamed: false };
    }
    let candidate = fitName(`${name}_${shortHash(salt, 4)}`);
    for (let n = 2; !this.free(candidate, salt); n++) candidate = fitName(`${name}_${shortHash(salt, 4)}_${n}`);
    this.taken.add(candidate);
    return { name: candidate, renamed: true };
  }

  private free(name: string, salt: string): boolean {
    const holder = this.held.get(name);
    return !this.taken.has(name) && (holder === undefined || holder === salt);
  }
}
