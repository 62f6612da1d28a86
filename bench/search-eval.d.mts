// Types for search-eval.mjs, so TypeScript tests can import it (the typecheck does not read JavaScript).

export interface TaskSet {
  name: string;
  file: string;
  /** Whether the search was tuned on it (GitHub's); the others are a measure only. */
  tuned: boolean;
  targets: { top1: number; top5: number };
}
export const TASK_SETS: TaskSet[];
export const TASKS_FILE: string;
export const TARGETS: { top1: number; top5: number };

export interface SearchTask {
  task: string;
  expected: string[];
}
export function readTasks(file?: string): { spec: string; tasks: SearchTask[] };

export interface TaskResult {
  task: string;
  expected: string[];
  /** 1-based rank of the best-placed expected tool; undefined when none was found. */
  rank: number | undefined;
  /** The first five names found. */
  found: string[];
}
export function evaluate(options: { tasks: SearchTask[]; search: (query: string) => string[] }): {
  total: number;
  top1: number;
  top5: number;
  results: TaskResult[];
  /** Tasks whose expected tool was not first. */
  misses: TaskResult[];
};
