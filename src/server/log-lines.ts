// The server's log, bounded: what a client sends must not decide how much is written. Every line is cut at a
// length (a response to an unknown JSON-RPC id was logged whole, up to 4 MiB a line), and refusals ("refused: …",
// one per request turned away) are logged only the first few in a window, then counted and said in one summary
// line (500 forged tokens wrote 500 lines).

import { MissingRequiredClientCapabilityError, UnsupportedProtocolVersionError } from "@modelcontextprotocol/server";

export interface LogLimits {
  /** Longer lines are cut here, saying how much was left out. Default 4,000 characters. */
  maxLineChars?: number;
  /** Refusals logged one by one in a window; the rest are counted. Default 10. */
  refusalsLogged?: number;
  /** The window (ms). Default 60 s. */
  windowMs?: number;
}

export const DEFAULT_LOG_LIMITS: Required<LogLimits> = { maxLineChars: 4_000, refusalsLogged: 10, windowMs: 60_000 };

export interface BoundedLog {
  (line: string): void;
  /** Writes the summary of refusals not logged yet, if any (at shutdown: nothing counted is lost). */
  flush(): void;
}

const REFUSAL = /^refused: (\d{3})?/;

export function boundedLog(write: (line: string) => void, limits: LogLimits = {}): BoundedLog {
  const { maxLineChars, refusalsLogged, windowMs } = { ...DEFAULT_LOG_LIMITS, ...limits };
  let logged = 0;
  let since = 0;
  /** Refusals counted but not logged in this window, by HTTP status. */
  const unlogged = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;

  const cut = (line: string): string => {
    if (line.length <= maxLineChars) return line;
    // Not between the two halves of a surrogate pair.
    const end = /[\uD800-\uDBFF]/.test(line.charAt(maxLineChars - 1)) ? maxLineChars - 1 : maxLineChars;
    return `${line.slice(0, end)} … (${line.length - end} more characters not logged)`;
  };

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    logged = 0;
    let total = 0;
    for (const count of unlogged.values()) total += count;
    if (total === 0) return;
    const seconds = Math.max(1, Math.round((Date.now() - since) / 1000));
    const statuses = [...unlogged].map(([status, count]) => `${status} × ${count}`).join(", ");
    unlogged.clear();
    write(`refused: … ${total} more refused in the last ${seconds} s (${statuses}), not logged one by one`);
  };

  const log = (line: string): void => {
    const refusal = REFUSAL.exec(line);
    if (!refusal) return void write(cut(line));
    if (timer === undefined) {
      since = Date.now();
      timer = setTimeout(flush, windowMs);
      // A window still open is no reason to keep the process alive.
      timer.unref();
    }
    if (logged < refusalsLogged) {
      logged++;
      return void write(cut(line));
    }
    const status = refusal[1] ?? "other";
    unlogged.set(status, (unlogged.get(status) ?? 0) + 1);
  };
  return Object.assign(log, { flush });
}

/**
 * What the SDK refuses of a client's request (malformed, for an unknown session or request id, the wrong protocol
 * era…): reported through `onerror`, one per request as a client pleases, so logged as refusals. Errors of its own
 * stay plain lines.
 */
const CLIENT_FAULT =
  /^(Bad Request|Conflict|Invalid Request|Not Acceptable|Unsupported Media Type|Method not allowed|Session not found|Invalid event ID|Rejected |Received a (response|progress notification) for an unknown|Unknown message type|Dropped inbound request|Era mismatch|requestState verification rejected|subscriptions\/listen refused)/;

/** The log line for an error the SDK reports. */
export function sdkErrorLine(error: Error): string {
  const refused =
    error instanceof UnsupportedProtocolVersionError ||
    error instanceof MissingRequiredClientCapabilityError ||
    CLIENT_FAULT.test(error.message);
  return refused ? `refused: mcp: ${error.message}` : `mcp: ${error.message}`;
}
