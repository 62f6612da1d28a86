// Console sessions: what the login form gives an admin. A random id in an HttpOnly, SameSite=Strict cookie (Secure
// unless the server is on loopback, where browsers have no https to offer), and a CSRF token of its own that the
// page sends in a header with every change: a cross-site form can carry the cookie's name but not the header.

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Admin } from "./admins.js";

export const CSRF_HEADER = "x-console-csrf";
/** Sessions last a working day, an OAuth admin's no longer than their access token; then the admin logs in again. */
const SESSION_MS = 8 * 60 * 60 * 1000;
/** More sessions than admins will ever open; past it the oldest ends (a login loop cannot fill the memory). */
const MAX_SESSIONS = 1_000;

export interface ConsoleSession {
  id: string;
  admin: Admin;
  csrf: string;
  expires: number;
}

export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();
  readonly cookieName: string;

  constructor(private readonly options: { secure: boolean; path: string }) {
    // `__Host-` pins a Secure cookie to this origin; over plain http on loopback it cannot be used.
    this.cookieName = options.secure ? "__Host-openapi-mcp-console" : "openapi-mcp-console";
  }

  start(admin: Admin): { session: ConsoleSession; cookie: string } {
    const now = Date.now();
    const expires = Math.min(now + SESSION_MS, admin.until ?? Number.POSITIVE_INFINITY);
    const session = { id: token(), admin, csrf: token(), expires };
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(session.id, session);
    // The browser forgets the cookie no later than the server the session.
    return { session, cookie: this.cookie(session.id, Math.max(1, Math.floor((expires - now) / 1000))) };
  }

  /** The request's session, when its cookie names a live one. */
  find(req: IncomingMessage): ConsoleSession | undefined {
    const id = cookieValue(req.headers.cookie, this.cookieName);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session) return undefined;
    if (session.expires > Date.now()) return session;
    this.sessions.delete(session.id);
    return undefined;
  }

  /** Whether the request carries the session's CSRF token (compared in constant time). */
  csrfHolds(req: IncomingMessage, session: ConsoleSession): boolean {
    const given = Buffer.from(String(req.headers[CSRF_HEADER] ?? ""));
    const expected = Buffer.from(session.csrf);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  end(session: ConsoleSession): string {
    this.sessions.delete(session.id);
    return this.cookie("", 0);
  }

  private cookie(value: string, maxAge: number): string {
    const path = this.options.secure ? "/" : this.options.path;
    const secure = this.options.secure ? "; Secure" : "";
    return `${this.cookieName}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`;
  }
}

function token(): string {
  return randomBytes(32).toString("base64url");
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}
