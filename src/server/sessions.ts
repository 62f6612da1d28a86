// The open sessions of a stateful HTTP endpoint, bounded. Each holds an SDK transport and Server (a few tens of KB,
// see docs/production.md), so without bounds any caller looping `initialize` exhausts the heap. A session with no request
// open (no call in flight, no notification stream) for the idle timeout is closed; past the caps a new session is
// refused with a wait to retry after. With endpoint auth the cap is also per verified principal, so one token
// cannot take every slot.

import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  DEFAULT_SESSION_IDLE_SECONDS,
} from "../runtime/options.js";

export interface SessionLimits {
  /** A session with no request open for this long is closed (ms). Default 30 minutes. */
  idleTimeoutMs?: number;
  /** Open sessions at most, all callers together. Default 1,000. */
  maxSessions?: number;
  /** Open sessions at most per verified principal (endpoint auth only). Default 100. */
  maxSessionsPerPrincipal?: number;
}

export const DEFAULT_SESSION_LIMITS: Required<SessionLimits> = {
  idleTimeoutMs: DEFAULT_SESSION_IDLE_SECONDS * 1000,
  maxSessions: DEFAULT_MAX_SESSIONS,
  maxSessionsPerPrincipal: DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
};

/** One session's place in the table, from its `initialize` until it closes. */
export interface Slot {
  readonly owner: string | undefined;
  /** Requests of this session still open: it does not expire while any is. */
  busy: number;
  /** When `busy` last dropped to 0. */
  idleSince: number;
  timer: NodeJS.Timeout | undefined;
  /** Closes the session's transport and server; set once they exist. */
  close: () => Promise<void>;
}

export type Admission = { slot: Slot } | { refused: string; retryAfterSeconds: number };

export class SessionTable {
  private readonly limits: Required<SessionLimits>;
  private readonly slots = new Set<Slot>();
  private readonly owned = new Map<string, number>();
  /** Caps whose refusals were logged (`""` for the global one): said once per time full, not once per request. */
  private readonly fullLogged = new Set<string>();

  constructor(
    limits: SessionLimits = {},
    private readonly log: (line: string) => void = () => {},
  ) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...limits };
  }

  get size(): number {
    return this.slots.size;
  }

  /** A slot for a new session, or why not and when to try again. */
  admit(owner: string | undefined): Admission {
    const { maxSessions, maxSessionsPerPrincipal } = this.limits;
    if (this.slots.size >= maxSessions) {
      return this.refuse({
        key: "",
        owner: undefined,
        message: `Too many open sessions (${maxSessions}); retry later`,
      });
    }
    if (owner !== undefined && (this.owned.get(owner) ?? 0) >= maxSessionsPerPrincipal) {
      const message = `Too many open sessions for this caller (${maxSessionsPerPrincipal}); end unused ones (DELETE) or retry later`;
      return this.refuse({ key: owner, owner, message });
    }
    const slot: Slot = { owner, busy: 0, idleSince: Date.now(), timer: undefined, close: async () => {} };
    this.slots.add(slot);
    if (owner !== undefined) this.owned.set(owner, (this.owned.get(owner) ?? 0) + 1);
    return { slot };
  }

  /** A request of the slot's session begins: no expiry while it is open. */
  begin(slot: Slot): void {
    slot.busy++;
    clearTimeout(slot.timer);
    slot.timer = undefined;
  }

  /** A request of the slot's session ended: once none is open, the idle clock runs. */
  end(slot: Slot): void {
    slot.busy = Math.max(0, slot.busy - 1);
    if (slot.busy > 0 || !this.slots.has(slot)) return;
    slot.idleSince = Date.now();
    slot.timer = setTimeout(() => void slot.close(), this.limits.idleTimeoutMs);
    // An idle session is no reason to keep the process alive.
    slot.timer.unref();
  }

  /** The session closed (expired, DELETE, shutdown, or refused before it began): its slot is free. */
  release(slot: Slot): void {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.timer);
    this.fullLogged.delete("");
    if (slot.owner === undefined) return;
    this.fullLogged.delete(slot.owner);
    const left = (this.owned.get(slot.owner) ?? 1) - 1;
    if (left > 0) this.owned.set(slot.owner, left);
    else this.owned.delete(slot.owner);
  }

  private refuse({ key, owner, message }: { key: string; owner: string | undefined; message: string }): Admission {
    if (!this.fullLogged.has(key)) {
      this.fullLogged.add(key);
      const whose = owner === undefined ? "" : " for one caller";
      this.log(`refused: 503 new sessions${whose} until one closes or expires: ${message}`);
    }
    return { refused: message, retryAfterSeconds: this.nextExpiry(owner) };
  }

  /** Seconds until the first idle session that would free the refused cap expires (the timeout if none is idle). */
  private nextExpiry(owner: string | undefined): number {
    const { idleTimeoutMs } = this.limits;
    let soonest = Date.now() + idleTimeoutMs;
    for (const slot of this.slots) {
      if (slot.busy === 0 && (owner === undefined || slot.owner === owner))
        soonest = Math.min(soonest, slot.idleSince + idleTimeoutMs);
    }
    return Math.max(1, Math.ceil((soonest - Date.now()) / 1000));
  }
}
