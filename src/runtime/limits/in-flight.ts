// Calls in flight to one upstream origin: at most so many in all and so many per principal; past that a call waits
// in its principal's queue (FIFO), and the principals waiting at an origin are served in turn (round robin), so one
// noisy principal's backlog never stands in front of another's call. A queue has a bound and a timeout: past
// them the call is refused, nothing sent. Counted per origin, since that is what the upstream (and a connection
// pool) sees; per principal within an origin, so a principal busy with one API is not held back at another. A
// waiting call may also have a weight (code mode's scripts: their bytes) bounded per principal, and the calls
// waiting at an origin may be bounded all principals together.

/**
 * Calls in flight to one upstream origin: a small connection pool's worth (browsers keep 6 connections per host,
 * OkHttp's dispatcher 5 requests per host and 64 in all); a server acting for many callers needs more than one
 * browser, and no API should see a thousand connections from one MCP server.
 */
export const DEFAULT_MAX_IN_FLIGHT = 32;
/** Per principal (per origin): more than any agent's parallel tool calls, a quarter of the origin's. */
export const DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL = 8;
/** Calls of one principal waiting at one origin: eight rounds of its slots. */
export const DEFAULT_MAX_QUEUED = 64;
/** How long a call waits for a slot: half the upstream timeout. */
export const DEFAULT_QUEUE_TIMEOUT_MS = 30_000;

/** One call's limits (resolved from the defaults, the source's settings and the caller's profile). */
export interface InFlightCaps {
  /** Calls in flight to the origin, all principals together. */
  perOrigin: number;
  /** Calls in flight to the origin from one principal. */
  perPrincipal: number;
  /** Calls of one principal waiting at the origin; one more is refused at once. */
  queue: number;
  /** Milliseconds a call waits for a slot before it is refused. */
  queueTimeoutMs: number;
  /** The weight one principal's waiting calls may have together (a script's bytes); unbounded when absent. */
  queueWeight?: number;
  /** Calls waiting at the origin, all principals together, and their weight; unbounded when absent. */
  queueAll?: number;
  queueWeightAll?: number;
}

/** Which bound of the queues refused a call: its principal's count or weight, or all principals' together. */
export type QueueBound = "queue" | "queueWeight" | "queueAll" | "queueWeightAll";

/** Which limit held a refused call back: the principal's own, or the origin's. */
export type Binding = "principal" | "origin";
export type Admission =
  | { slot: { release(): void } }
  | { refused: "queue_full"; binding: Binding; bound: QueueBound }
  | { refused: "queue_timeout"; binding: Binding }
  | { refused: "cancelled" };

interface Waiter {
  caps: InFlightCaps;
  weight: number;
  grant(): void;
  leave(): void;
}
interface PrincipalState {
  inFlight: number;
  queue: Waiter[];
  /** The weight of `queue` together. */
  weight: number;
}
interface OriginState {
  inFlight: number;
  principals: Map<string, PrincipalState>;
  /** Calls waiting at the origin, all principals together, and their weight. */
  waiting: number;
  weight: number;
  /** Principals with waiting calls, in the order they are served; `turn` is whose is next. */
  ring: string[];
  turn: number;
}

export class InFlightGate {
  private readonly origins = new Map<string, OriginState>();

  /** A slot for one call to `origin` (released when the call ends), or why there is none. */
  acquire({
    origin,
    principal,
    caps,
    signal,
    weight = 0,
  }: {
    origin: string;
    principal: string;
    caps: InFlightCaps;
    signal?: AbortSignal;
    /** What the call weighs while it waits (counted against queueWeight and queueWeightAll). */
    weight?: number;
  }): Promise<Admission> {
    if (signal?.aborted) return Promise.resolve({ refused: "cancelled" });
    const at = this.originState(origin);
    const mine = at.principals.get(principal) ?? { inFlight: 0, queue: [], weight: 0 };
    at.principals.set(principal, mine);
    if (mine.queue.length === 0 && at.inFlight < caps.perOrigin && mine.inFlight < caps.perPrincipal)
      return Promise.resolve({ slot: this.take({ origin, principal }) });
    const binding: () => Binding = () => (mine.inFlight >= caps.perPrincipal ? "principal" : "origin");
    const full = fullBound({ at, mine, caps, weight });
    if (full) {
      const refusal = { refused: "queue_full", binding: binding(), bound: full } as const;
      this.forget({ origin, principal });
      return Promise.resolve(refusal);
    }
    return new Promise<Admission>((resolve) => {
      const leave = (admission: Admission): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const index = mine.queue.indexOf(waiter);
        if (index !== -1) {
          mine.queue.splice(index, 1);
          unweigh({ at, mine, waiter });
        }
        if (mine.queue.length === 0) this.leaveRing({ at, principal });
        this.forget({ origin, principal });
        resolve(admission);
      };
      const onAbort = (): void => leave({ refused: "cancelled" });
      const timer = setTimeout(() => leave({ refused: "queue_timeout", binding: binding() }), caps.queueTimeoutMs);
      // A waiting call keeps no process alive by itself: its client's request does, while there is one.
      timer.unref?.();
      signal?.addEventListener("abort", onAbort, { once: true });
      const waiter: Waiter = {
        caps,
        weight,
        leave: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
        grant: () => resolve({ slot: this.take({ origin, principal }) }),
      };
      mine.queue.push(waiter);
      mine.weight += weight;
      at.waiting++;
      at.weight += weight;
      if (mine.queue.length === 1) at.ring.push(principal);
    });
  }

  /** Calls in flight to `origin` (all principals, or one). */
  inFlight(origin: string, principal?: string): number {
    const at = this.origins.get(origin);
    if (!at) return 0;
    return principal === undefined ? at.inFlight : (at.principals.get(principal)?.inFlight ?? 0);
  }

  private take({ origin, principal }: { origin: string; principal: string }): { release(): void } {
    const at = this.originState(origin);
    const mine = at.principals.get(principal)!;
    at.inFlight++;
    mine.inFlight++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        at.inFlight--;
        mine.inFlight--;
        this.pump(at);
        this.forget({ origin, principal });
      },
    };
  }

  /** Grants waiting calls while some can go: the next principal in turn whose first call fits its limits. */
  private pump(at: OriginState): void {
    let looked = 0;
    while (at.ring.length > 0 && looked < at.ring.length) {
      if (at.turn >= at.ring.length) at.turn = 0;
      const principal = at.ring[at.turn]!;
      const mine = at.principals.get(principal)!;
      const first = mine.queue[0]!;
      if (at.inFlight >= first.caps.perOrigin || mine.inFlight >= first.caps.perPrincipal) {
        at.turn++;
        looked++;
        continue;
      }
      mine.queue.shift();
      unweigh({ at, mine, waiter: first });
      first.leave();
      if (mine.queue.length === 0) at.ring.splice(at.turn, 1);
      else at.turn++;
      looked = 0;
      first.grant();
    }
  }

  private leaveRing({ at, principal }: { at: OriginState; principal: string }): void {
    const index = at.ring.indexOf(principal);
    if (index === -1) return;
    at.ring.splice(index, 1);
    if (index < at.turn) at.turn--;
  }

  private originState(origin: string): OriginState {
    let at = this.origins.get(origin);
    if (!at) {
      at = { inFlight: 0, principals: new Map(), ring: [], turn: 0, waiting: 0, weight: 0 };
      this.origins.set(origin, at);
    }
    return at;
  }

  /** Drops the state of a principal, and of an origin, with nothing in flight or waiting (memory stays bounded). */
  private forget({ origin, principal }: { origin: string; principal: string }): void {
    const at = this.origins.get(origin);
    const mine = at?.principals.get(principal);
    if (!at || !mine) return;
    if (mine.inFlight === 0 && mine.queue.length === 0) at.principals.delete(principal);
    if (at.inFlight === 0 && at.principals.size === 0) this.origins.delete(origin);
  }
}

/** The first bound one more waiting call of `weight` would pass, if any. */
function fullBound({
  at,
  mine,
  caps,
  weight,
}: {
  at: OriginState;
  mine: PrincipalState;
  caps: InFlightCaps;
  weight: number;
}): QueueBound | undefined {
  if (mine.queue.length >= caps.queue) return "queue";
  if (caps.queueWeight !== undefined && mine.weight + weight > caps.queueWeight) return "queueWeight";
  if (caps.queueAll !== undefined && at.waiting >= caps.queueAll) return "queueAll";
  if (caps.queueWeightAll !== undefined && at.weight + weight > caps.queueWeightAll) return "queueWeightAll";
  return undefined;
}

function unweigh({ at, mine, waiter }: { at: OriginState; mine: PrincipalState; waiter: Waiter }): void {
  mine.weight -= waiter.weight;
  at.waiting--;
  at.weight -= waiter.weight;
}
