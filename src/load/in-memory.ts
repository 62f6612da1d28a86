// Documents a library user hands over in memory. They are read as if from a file: written out as JSON, then
// parsed and checked by the same reader, because a typed object can still hold anything at run time (cycles,
// `__proto__` keys, depth, values JSON cannot carry).

import { resolve as resolvePath } from "node:path";
import type { OpenAPI } from "openapi-types";
import type { ActionDefinition } from "../catalog/action-definition.js";
import { messageOf, UserError } from "../catalog/errors.js";
import type { SourceText } from "./source-text.js";

/** A source given as an object instead of a file path or URL. */
export interface DocumentSource {
  /** An OpenAPI 2.0, 3.0 or 3.1 document, or a custom action definition, as a plain object. */
  document: OpenAPI.Document | ActionDefinition;
  /** What messages call it, and what its namespace is named after beside other sources ("document" by default). */
  name?: string;
  /** The directory relative external `$ref`s are read from (the working directory by default). */
  baseDir?: string;
}

/** What `loadCatalog` accepts for each source. */
export type CatalogSource = string | DocumentSource;

const DEFAULT_NAME = "document";

export function sourceName(source: CatalogSource): string {
  return typeof source === "string" ? source : source.name || DEFAULT_NAME;
}

export function documentText(source: DocumentSource): SourceText {
  const display = sourceName(source);
  let text: string | undefined;
  try {
    text = JSON.stringify(source.document);
  } catch (error) {
    throw new UserError({ code: "E_SOURCE", message: `${display}: cannot be read as JSON: ${messageOf(error)}` });
  }
  if (text === undefined)
    throw new UserError({ code: "E_SOURCE", message: `${display}: is not a document (got ${typeof source.document})` });
  // The location only places relative references; nothing is read from it.
  const location = resolvePath(source.baseDir ?? process.cwd(), `${display.replace(/[\\/]/g, "_")}.json`);
  return { bytes: Buffer.from(text, "utf8"), location, remote: false, display };
}
