// The tool calls a server has in flight, so a shutdown can let them finish, then cut the rest short. Shared by
// every SDK `Server` of one endpoint (one per HTTP session, or one per request when stateless).

/** Why a call that outlived the shutdown grace period ended. */
export class ShutdownError extends Error {
  constructor() {
    super("The server is shutting down; the call was cancelled. Retry it once the server is back.");
    this.name = "ShutdownError";
  }
}

interface Running {
  controller: AbortController;
  /** Settles the call at once with a ShutdownError, even if its provider ignores the abort. */
  cut: (error: ShutdownError) => void;
}

export class CallTracker {
  private closing = false;
  // Each call's own controller, so shutdown aborts them one by one: nothing long-lived holds a listener per call
  // (an AbortSignal.any over a server-lifetime signal kept ~140 B per call for good).
  private readonly running = new Map<Promise<unknown>, Running>();

  get size(): number {
    return this.running.size;
  }

  /**
   * Runs `call` with a signal that fires when `requestSignal` does (the client cancelled or went away) or when the
   * shutdown gives up waiting, and tracks it until it settles.
   */
  run<T>(requestSignal: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new ShutdownError());
    const controller = new AbortController();
    const onRequestAbort = (): void => controller.abort(requestSignal.reason);
    if (requestSignal.aborted) controller.abort(requestSignal.reason);
    else requestSignal.addEventListener("abort", onRequestAbort, { once: true });
    let cut: (error: ShutdownError) => void = () => {};
    const shutdown = new Promise<never>((_, reject) => {
      cut = reject;
    });
    const started = call(controller.signal);
    // The race may be lost to the shutdown; the provider's late rejection is nobody's concern then.
    started.catch(() => {});
    const raced = Promise.race([started, shutdown]).finally(() => {
      requestSignal.removeEventListener("abort", onRequestAbort);
      this.running.delete(raced);
    });
    this.running.set(raced, { controller, cut });
    return raced;
  }

  /** Resolves true once nothing is in flight, or false when `ms` pass first. */
  async drain(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.allSettled([...this.running.keys()]), timeout]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Aborts every call still running and refuses new ones. */
  abort(): void {
    this.closing = true;
    for (const { controller, cut } of this.running.values()) {
      const error = new ShutdownError();
      controller.abort(error);
      cut(error);
    }
  }
}
