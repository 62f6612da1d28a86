// Loading a registry's sources from the bytes it read, not from the files again: what was validated is exactly what is
// published, however the files change meanwhile, and a source whose newest text was refused keeps serving its previous
// text (which is no longer on disk). The loader reads them through the catalog cache's hook (../load/recorded-reads.ts)
// under their own paths, so every message names the file as the user knows it.

import { resolve } from "node:path";
import { UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import { loadCatalog } from "../load/index.js";
import type { LoadOptions } from "../load/sources.js";
import { recordReads } from "../load/recorded-reads.js";
import { diagnosticError, type SourceError, thrownErrors } from "./status.js";

/** A source's path (as messages show it) and the bytes of the version to load. */
export interface SourceBytes {
  path: string;
  bytes: Buffer;
}

/** The catalog of these sources, in this order; throws a UserError on an error in any of them. */
export async function loadFromBytes({
  sources,
  options,
}: {
  sources: SourceBytes[];
  options: LoadOptions;
}): Promise<Catalog> {
  const given = new Map(
    sources.map(({ path, bytes }) => {
      const location = resolve(path);
      return [location, { bytes, location, remote: false, display: path }] as const;
    }),
  );
  return recordReads({ given, read: [] }, () =>
    loadCatalog(
      sources.map((source) => source.path),
      options,
    ),
  );
}

/**
 * One source checked as `validate` checks it (the official schemas, every error with its line): its errors, none
 * when it may be published. `others` are the sources it will be served beside (for the namespaces).
 */
export async function checkSource({
  source,
  options,
}: {
  source: SourceBytes;
  options: LoadOptions;
}): Promise<SourceError[]> {
  try {
    const catalog = await loadFromBytes({ sources: [source], options: { ...options, checkConformance: true } });
    return catalog.diagnostics.filter((d) => d.severity === "error").map(diagnosticError);
  } catch (error) {
    return thrownErrors(error, source.path);
  }
}

/** Errors of a whole catalog (what serve refuses to start on) as a UserError; nothing when it has none. */
export function refuseErrors(catalog: Catalog): void {
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return;
  const shown = errors.slice(0, 10).map((d) => `${d.file ?? ""}${d.pointer ? `#${d.pointer}` : ""}: ${d.message}`);
  throw new UserError({ code: "E_CATALOG", message: `not published: ${shown.join("; ")}` });
}
