// Types for corpus-check.mjs, so TypeScript tests can import it (the typecheck does not read JavaScript).

import type { Catalog } from "../src/catalog/types.js";

export const DIRECTORY: string;
export const GITHUB_SPEC: string;

export interface CorpusSpec {
  /** Path under the directory, e.g. "googleapis.com/compute.json". */
  name: string;
  file: string;
  bytes: number;
}
export function directorySpecs(): CorpusSpec[];

export interface CatalogProblems {
  schema: string[];
  name: string[];
  duplicate: string[];
}
export function checkCatalog(
  catalog: Catalog,
  options?: { maxTools?: number },
): { checkedTools: number; problems: CatalogProblems };

export type SpecResult =
  | {
      outcome: "loaded";
      tools: number;
      checkedTools: number;
      problems: CatalogProblems;
      loadMs: number;
      checkMs: number;
    }
  | { outcome: "refused"; code: string; message: string; tools?: number; loadMs: number }
  | { outcome: "crash"; message: string; tools?: number; loadMs: number };
export function runSpec(file: string, options?: { maxTools?: number }): Promise<SpecResult>;
