// The tool calls a server has in flight, so a shutdown can let them finish, then cut the rest short. Shared by
// every SDK `Server` of one endpoint (one per HTTP session, or one per request when stateless).

/** Why a call that outlived the shutdown grace period ended. */
export class ShutdownError extends Error {
  constructor() {
    super("The server is shutting down; the call was cancelled. Retry it once the server is back.");
    this.name = "ShutdownError";
  }
}

export class CallTracker {
  private readonly shutdown = new AbortController();
  private readonly pending = new Set<Promise<unknown>>();

  /** Fires when the shutdown gives up waiting: providers see it through their call's signal. */
  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * Tracks `call` until it settles, and settles at once with a `ShutdownError` when the shutdown aborts: the
   * client then gets an answer even from a provider that ignores its signal.
   */
  run<T>(call: Promise<T>): Promise<T> {
    const { signal } = this.shutdown;
    if (signal.aborted) return Promise.reject(new ShutdownError());
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new ShutdownError());
      signal.addEventListener("abort", onAbort, { once: true });
    });
    const raced = Promise.race([call, aborted]).finally(() => {
      signal.removeEventListener("abort", onAbort);
      this.pending.delete(raced);
    });
    this.pending.add(raced);
    // The race itself may lose to the abort; the provider's late rejection is not anyone's concern then.
    call.catch(() => {});
    return raced;
  }

  /** Resolves true once nothing is in flight, or false when `ms` pass first. */
  async drain(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.pending.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.allSettled([...this.pending]), timeout]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Aborts every call still running and refuses new ones. */
  abort(): void {
    this.shutdown.abort(new ShutdownError());
  }
}
