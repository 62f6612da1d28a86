// Types for github-upstream.mjs, so TypeScript tests can import it (the typecheck does not read JavaScript).

import type { Catalog } from "../src/catalog/types.js";

export interface GithubRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  body: string;
}

export interface GithubUpstream {
  /** `http://127.0.0.1:<port>`, no trailing slash: GitHub's paths go after it. */
  url: string;
  catalog: Catalog;
  world: { repos: Array<{ name: string; issueCount: number }>; members: string[] };
  requests: GithubRequest[];
  /** Responses sent that the project's validator refused: the tool and its first mismatch. */
  invalid: Array<{ tool: string; mismatch: { pointer: string; message: string } }>;
  /** JSON responses sent (and checked). */
  served: number;
  /** The world as the seed makes it again (writes undone), and no requests recorded. */
  reset(): void;
  close(): Promise<void>;
}

export const OWNER: string;
export const ORG: string;
export function startGithubUpstream(options?: { seed?: number }): Promise<GithubUpstream>;
