// Host and Origin checks for the HTTP endpoint. A server on loopback is reachable from any web page the user opens
// through DNS rebinding (attacker.example resolving to 127.0.0.1), so on loopback only loopback names are accepted in
// Host; an Origin header, which browsers send, must be a loopback origin or one the operator allowed.
// Pure functions: no I/O, so they are tested as tables.

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/;

import { isLoopbackHost } from "../catalog/url.js";

/** `[::1]` for `::1`: the form a Host header and a URL take. */
export function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** `{ name, port }` of a Host header (port 80 when absent), or undefined when it is not a plain host[:port]. */
export function parseHostHeader(header: string): { name: string; port: number } | undefined {
  const match = HOST_HEADER.exec(header.trim().toLowerCase());
  if (!match) return undefined;
  const port = match[2] === undefined ? 80 : Number(match[2]);
  return port > 65_535 ? undefined : { name: match[1]!, port };
}

export interface GuardOptions {
  /** The address the server is bound to. */
  host: string;
  /** The port it listens on (the real one, after port 0 was resolved). */
  port: number;
  /** More Host values to accept: `name` (any port) or `name:port`. */
  allowedHosts?: string[];
  /** More origins to accept, e.g. `https://app.example.com`. */
  allowedOrigins?: string[];
}

export class RequestGuard {
  private readonly hostNames = new Set<string>();
  private readonly hostPorts = new Set<string>();
  private readonly origins = new Set<string>();
  private readonly checksHost: boolean;

  constructor({ host, port, allowedHosts = [], allowedOrigins = [] }: GuardOptions) {
    // Bound to a public or wildcard address with no names given, the server cannot know its names: no Host check.
    this.checksHost = isLoopbackHost(host) || allowedHosts.length > 0;
    for (const name of [...LOOPBACK_NAMES, bracketed(host).toLowerCase()]) this.hostPorts.add(`${name}:${port}`);
    for (const entry of allowedHosts) {
      const parsed = parseHostHeader(entry);
      if (!parsed) throw new Error(`Not a host name or host:port: ${entry}`);
      if (/:\d+$/.test(entry.trim())) this.hostPorts.add(`${parsed.name}:${parsed.port}`);
      else this.hostNames.add(parsed.name);
    }
    for (const entry of allowedOrigins) this.origins.add(new URL(entry).origin);
  }

  /** Why a request's Host header is refused, or undefined when it is accepted. */
  checkHost(header: string | undefined): string | undefined {
    if (!this.checksHost) return undefined;
    const parsed = header === undefined ? undefined : parseHostHeader(header);
    if (parsed && (this.hostNames.has(parsed.name) || this.hostPorts.has(`${parsed.name}:${parsed.port}`))) {
      return undefined;
    }
    return `Invalid Host header: ${header ?? "(none)"}`;
  }

  /**
   * Why a request's Origin header is refused, or undefined when it is absent or accepted. Loopback origins pass on
   * any binding: a page served from the user's own machine is no rebinding attacker.
   */
  checkOrigin(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    let origin: URL | undefined;
    try {
      origin = new URL(header);
    } catch {
      origin = undefined;
    }
    if (origin && this.origins.has(origin.origin)) return undefined;
    const local = origin && /^https?:$/.test(origin.protocol) && LOOPBACK_NAMES.has(origin.hostname);
    return local ? undefined : `Invalid Origin header: ${header}`;
  }
}
