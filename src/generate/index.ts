// `openapi-mcp generate`: a standalone TypeScript project that serves the catalog exactly as `serve` does,
// carrying the same runtime. What the command does, as a library call.

import type { Catalog } from "../catalog/types.js";
import { type GeneratedFile, type LargeListing, renderProject } from "./render.js";
import { type WriteReport, writeProject } from "./write.js";

/** Catalogs this large take a while to render and write: the steps are narrated through `progress`. */
const NARRATED_TOOLS = 1_000;

export function generateProject({
  catalog,
  out,
  name,
  force,
  generator,
  progress,
  largeListing,
}: {
  catalog: Catalog;
  out: string;
  name?: string;
  force?: boolean;
  generator: string;
  progress?: (line: string) => void;
  /** When tools/list is over the context budget: the README then configures clients with `--mode dynamic`. */
  largeListing?: LargeListing;
}): {
  files: GeneratedFile[];
  report: WriteReport;
} {
  const narrate = catalog.tools.length >= NARRATED_TOOLS ? progress : undefined;
  narrate?.(`rendering a project for ${catalog.tools.length.toLocaleString("en-US")} tools…`);
  const files = renderProject({ catalog, ...(name ? { name } : {}), ...(largeListing ? { largeListing } : {}) });
  const bytes = files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0);
  narrate?.(`writing ${files.length} files (${(bytes / 2 ** 20).toFixed(1)} MB) to ${out}…`);
  const report = writeProject({ out, files, generator, ...(force ? { force: true } : {}) });
  return { files, report };
}
