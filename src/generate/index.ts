// `openapi-mcp generate`: a standalone TypeScript project that serves the catalog exactly as `serve` does,
// carrying the same runtime. What the command does, as a library call.

import type { Catalog } from "../catalog/types.js";
import { type GeneratedFile, renderProject } from "./render.js";
import { type WriteReport, writeProject } from "./write.js";

export type { GeneratedFile } from "./render.js";
export type { WriteReport } from "./write.js";
export { renderProject } from "./render.js";

export function generateProject({ catalog, out, name, force, generator }: { catalog: Catalog; out: string; name?: string; force?: boolean; generator: string }): {
  files: GeneratedFile[];
  report: WriteReport;
} {
  const files = renderProject({ catalog, ...(name ? { name } : {}) });
  const report = writeProject({ out, files, generator, ...(force ? { force: true } : {}) });
  return { files, report };
}
