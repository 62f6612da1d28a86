// What the version normalizers share: following `$ref`s to components with a diagnostic when they lead
// nowhere, server URLs, and small readers for loosely typed document fields.

import type { ApiParameter, ApiSecurityScheme } from "../../catalog/document.js";
import { isObject, localRefPointer, resolvePointer } from "../../catalog/pointer.js";
import type { Diagnostic, HttpMethod } from "../../catalog/types.js";
import { isUrl } from "../../catalog/url.js";
import type { ServerVariableInput } from "./server-variable-input.js";

/** Operation keys of a path item, in the order tools are listed. */
export const METHOD_KEYS: Array<[string, HttpMethod]> = [
  ["get", "GET"],
  ["put", "PUT"],
  ["post", "POST"],
  ["delete", "DELETE"],
  ["options", "OPTIONS"],
  ["head", "HEAD"],
  ["patch", "PATCH"],
  ["trace", "TRACE"],
];

/** A problem at a place of the document, for `warn` and `error`. */
export interface Problem {
  code: string;
  pointer: string;
  message: string;
}

/** What a version's normalizer is given: the parsed document, where it came from, values for its server variables. */
export interface NormalizeInput {
  root: Record<string, unknown>;
  /** Where the document came from, for messages. */
  file: string;
  /** Absolute path or URL: relative server and token URLs resolve against it. */
  location: string;
  /** Values for server variables, and where the names the chosen servers use are recorded. */
  serverVariables?: ServerVariableInput | undefined;
}

/** An object of the document and where it is (after following `$ref`s). */
export interface Located {
  value: Record<string, unknown>;
  pointer: string;
}

export class Normalizer {
  readonly diagnostics: Diagnostic[] = [];
  readonly root: Record<string, unknown>;
  readonly file: string;
  /** Where the document came from: relative server and token URLs resolve against it when it is a URL. */
  readonly location: string;
  /** Server variable values the user set, and the names the chosen servers use. */
  readonly serverVariables: ServerVariableInput | undefined;

  constructor({ root, file, location, serverVariables }: NormalizeInput) {
    this.root = root;
    this.file = file;
    this.location = location;
    this.serverVariables = serverVariables;
  }

  // Operations share components (GitHub's 1,200 operations use a few dozen parameters and responses).
  private readonly resolved = new Map<string, unknown>();
  /** Parameters already read, by where they are defined; null for one that was refused. */
  readonly parameters = new Map<string, ApiParameter | null>();

  /** The object `value` is or refers to, with its real pointer; undefined (and an error) if it leads nowhere. */
  deref({ value, pointer }: { value: unknown; pointer: string }): Located | undefined {
    let current = value;
    let at = pointer;
    for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
      const target = localRefPointer(current.$ref);
      const resolved = target === undefined ? undefined : this.resolve(target);
      if (target === undefined || resolved === undefined || hops > 32) {
        this.error({
          code: "unresolved-ref",
          pointer: `${at}/$ref`,
          message: `$ref '${current.$ref}' does not resolve: nothing is at that place in the document`,
        });
        return undefined;
      }
      current = resolved;
      at = target;
    }
    if (!isObject(current)) {
      this.warn({
        code: "invalid-object",
        pointer: at,
        message: `expected an object here, found ${JSON.stringify(current)?.slice(0, 40)}; ignored`,
      });
      return undefined;
    }
    return { value: current, pointer: at };
  }

  private resolve(pointer: string): unknown {
    if (this.resolved.has(pointer)) return this.resolved.get(pointer);
    const value = resolvePointer(this.root, pointer);
    this.resolved.set(pointer, value);
    return value;
  }

  /** The path as sent: a `#fragment` in a path key (Box's spec has 19) never goes over HTTP. */
  requestPath({ path, pointer }: { path: string; pointer: string }): string {
    const hash = path.indexOf("#");
    if (hash < 0) return path;
    this.warn({
      code: "path-fragment",
      pointer,
      message: `path ${path} has a fragment (${path.slice(hash)}); it is not part of a request and is left out`,
    });
    return path.slice(0, hash);
  }

  warn({ code, pointer, message }: Problem): void {
    this.diagnostics.push({ severity: "warning", code, message, file: this.file, pointer });
  }

  error({ code, pointer, message }: Problem): void {
    this.diagnostics.push({ severity: "error", code, message, file: this.file, pointer });
  }

  /**
   * An absolute URL for a server or OAuth URL: a relative one resolves `against` a base when that is absolute (an
   * OAuth URL against the server's, as OpenAPI 3 says), else against the document's own URL; "" when neither is a
   * URL (a relative reference in a local file with a relative server).
   */
  absoluteUrl(url: string, { against }: { against?: string } = {}): string {
    if (isUrl(url)) return url;
    const base = against !== undefined && isUrl(against) ? against : isUrl(this.location) ? this.location : undefined;
    if (base === undefined) return "";
    try {
      return new URL(url, base).href;
    } catch {
      return "";
    }
  }
}

export function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

export function extensions(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([key]) => key.startsWith("x-")));
}

/** Security requirements: a list of objects mapping scheme names to scope lists; anything else is dropped. */
export function requirements(value: unknown): Array<Record<string, string[]>> | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter(isObject)
    .map((requirement) =>
      Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, stringList(scopes)])),
    );
}

export function trimTrailingSlash(url: string): string {
  return url.length > 1 ? url.replace(/\/+$/, "") : url;
}

export function unsupportedScheme({
  reason,
  description,
}: {
  reason: string;
  description?: string | undefined;
}): ApiSecurityScheme {
  return { type: "unsupported", reason, ...(description ? { description } : {}) };
}
