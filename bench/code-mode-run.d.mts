// Types for code-mode-run.mjs, so the bench's test can import it (the typecheck does not read JavaScript).

import type { Task } from "./code-mode-tasks.mjs";
import type { GithubUpstream } from "./github-upstream.mjs";

export interface Run {
  task: string;
  mode: string;
  listing: number;
  requests: number;
  results: number;
  total: number;
  calls: number;
  /** The plan's answer as JSON: the script's return value in code mode, the same function's in the others. */
  answer: string;
  /** What reached the upstream: `METHOD url body` lines, writes and reads apart. */
  effects: { writes: string[]; reads: string[] };
}

export function runTasks(options: {
  modes: string[];
  tasks: Task[];
  upstream: GithubUpstream;
  env?: Record<string, string>;
}): Promise<{ runs: Run[]; skipped: Record<string, string>; notes: string[] }>;
