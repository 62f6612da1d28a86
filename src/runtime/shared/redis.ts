// One connection to Redis (node-redis), made so that callers can fail closed: commands never wait in an offline
// queue (they fail at once while the connection is down) and time out when Redis stops answering; once it has
// connected, the client reconnects by itself with a capped backoff. node-redis is imported only when a Redis URL is
// configured, so a server without shared state never loads it.

import { UserError } from "../../catalog/errors.js";

/** The commands the stores send: raw, so any store can use any command without the client's generic types. */
export interface RedisConnection {
  sendCommand(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** How long one command may take before it fails (Redis answers in well under a millisecond on a LAN). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1_000;
const RECONNECT_MAX_MS = 2_000;
/** Commands in a row without an answer after which the connection is taken for dead and made again. */
export const STALLED_AFTER_TIMEOUTS = 3;

/** The URL for messages and logs: the password, if any, masked. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "(an unreadable URL)";
  }
}

/**
 * Connects to `url` (redis:// or rediss://). Rejects with the cause when Redis cannot be reached now; afterwards,
 * outages are logged once each and the client reconnects until Redis is back.
 */
export async function connectRedis({
  url,
  log,
  commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
}: {
  url: string;
  log: (line: string) => void;
  commandTimeoutMs?: number;
}): Promise<RedisConnection> {
  const { createClient } = await import("redis");
  const shown = maskedUrl(url);
  let started = false;
  let down = false;
  const make = () => {
    const made = createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: commandTimeoutMs },
      socket: {
        connectTimeout: commandTimeoutMs,
        // Before the first connection, give up at once (the start fails with a clear error); after, keep trying.
        reconnectStrategy: (retries, cause) => (started ? Math.min(50 * 2 ** retries, RECONNECT_MAX_MS) : cause),
      },
    });
    made.on("error", (error: unknown) => {
      if (!started || down || made !== client) return;
      down = true;
      log(
        `shared state: Redis at ${shown} unreachable (${error instanceof Error ? error.message : String(error)}); reconnecting`,
      );
    });
    made.on("ready", () => {
      if (made !== client) return;
      if (down) log(`shared state: Redis at ${shown} reachable again`);
      down = false;
    });
    return made;
  };
  let client = make();
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw error;
  }
  started = true;
  // The server's own listeners keep the process alive; an open Redis connection alone must not (e.g. `call`).
  client.unref();
  // A connection whose network went silent (no RST, no FIN) is never given up by node-redis while the far side
  // acknowledges, or only after minutes of TCP retries: after a few commands in a row without an answer, a new one.
  let timeouts = 0;
  const replace = (): void => {
    const stale = client;
    client = make();
    client.unref();
    client.connect().catch(() => {});
    stale.destroy();
  };
  return {
    sendCommand: async (args) => {
      const used = client;
      try {
        const reply = await answered({ reply: used.sendCommand(args), ms: commandTimeoutMs });
        if (used === client) timeouts = 0;
        return reply;
      } catch (error) {
        if (error instanceof NoAnswer && used === client && ++timeouts >= STALLED_AFTER_TIMEOUTS) {
          timeouts = 0;
          down = true;
          log(
            `shared state: Redis at ${shown} did not answer ${STALLED_AFTER_TIMEOUTS} commands in a row; connecting again`,
          );
          replace();
        }
        throw error;
      }
    },
    // Pending commands are waited for, as long as one command may take: on a silent network they never end.
    close: async () => {
      const open = client;
      if (open.isOpen) await Promise.race([open.close(), delay(commandTimeoutMs)]);
      open.destroy();
    },
  };
}

class NoAnswer extends Error {}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * `reply`, or a rejection after `ms`: node-redis's own command timeout stops at the write, so a Redis that stops
 * answering (stopped process, lost network) would hang the call. A late reply is consumed and dropped.
 */
function answered({ reply, ms }: { reply: Promise<unknown>; ms: number }): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(`Redis did not answer within ${ms} ms`)), ms);
  });
  reply.catch(() => {});
  return Promise.race([reply, timeout]).finally(() => clearTimeout(timer));
}

/** The `--state` value checked: `memory`, or a redis:// or rediss:// URL. */
export function checkStateUrl(state: string): "memory" | URL {
  if (state === "memory") return "memory";
  let url: URL | undefined;
  try {
    url = new URL(state);
  } catch {}
  if (url && (url.protocol === "redis:" || url.protocol === "rediss:")) return url;
  throw new UserError({
    code: "E_STATE",
    message: `--state (MCP_STATE, settings state) must be 'memory' or a redis:// or rediss:// URL (Redis or Valkey), not ${JSON.stringify(url ? maskedUrl(state) : state.slice(0, 80))}`,
  });
}
