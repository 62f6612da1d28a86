// Types for code-mode-tasks.mjs, so the bench's test can import it (the typecheck does not read JavaScript).

export interface Task {
  id: string;
  kind: string;
  prompt: string;
  /** What the agent asks search_tools in dynamic and code mode. */
  searches: string[];
  /** The tools the plan calls, described before it runs. */
  tools: string[];
  /** The reference plan: the body of an async function over `api["<tool>"](args)`. */
  plan: string;
}

export const TASKS: Task[];
