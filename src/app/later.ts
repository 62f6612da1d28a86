// Work the first answers do not need (the budget line, keeping the catalog in the cache): run a second after the
// server is up, or when it closes first, so a client waits for none of it.

/** When what the first answers do not need runs: once a client has had them, as a rule. */
const LATER_MS = 1_000;

export interface Later {
  add(task: () => void | Promise<void>): void;
  /** Runs the tasks now if they have not run; settles when they have. */
  run(): Promise<void>;
}

/** Tasks run once, LATER_MS from now or when the server closes first; `run` settles when they have run. */
export function later(): Later {
  const tasks: Array<() => void | Promise<void>> = [];
  let done: Promise<void> | undefined;
  const timer = setTimeout(() => void run(), LATER_MS).unref();
  const run = (): Promise<void> => {
    done ??= (async () => {
      for (const task of tasks)
        await Promise.resolve()
          .then(task)
          .catch(() => {});
    })();
    return done;
  };
  return {
    add: (task) => void tasks.push(task),
    run: () => {
      clearTimeout(timer);
      return run();
    },
  };
}
