// The console at /console: its page shell and files for anyone (the shell shows the login form; nothing in them is
// secret), its API for a logged-in admin only. Login exchanges the admin token (or an OAuth admin's access token) for
// a session cookie; every POST after it needs that cookie, the session's CSRF token in a header and a same-origin
// request. Pages are registered here and in ui/app.js (page.ts says what one is).

import type { ServerResponse } from "node:http";
import { messageOf } from "../catalog/errors.js";
import type { HttpMount, MountRequest } from "../runtime/http-route.js";
import { type Admin, ConsoleAdmins } from "./admins.js";
import { ConsoleAssets } from "./assets.js";
import type { ConsolePage, ConsoleView } from "./page.js";
import { logIn, sessionJson } from "./login.js";
import { type JsonBody, readJson, sameOrigin, sendJson, sendText } from "./replies.js";
import { ConsoleSessions } from "./sessions.js";

export const CONSOLE_PATH = "/console";
/** The API's POST bodies (a definition typed on the Author page, a call's arguments), read only for an admin. */
const MAX_API_BODY_BYTES = 1024 * 1024;

export interface ConsoleOptions {
  /** The engine and catalog served now (a registry may swap them). */
  view: () => ConsoleView;
  pages: readonly ConsolePage[];
  /** The admin token's value; absent: only OAuth admins (`oauth`) may log in. */
  adminToken?: string;
  /** The endpoint checks OAuth access tokens: one with the admin scope or role may log in (admins.ts). */
  oauth: boolean;
  /** Cookies marked Secure: always, except on loopback (plain http there, no https to require). */
  secure: boolean;
  /** Every configured secret, masked in every answer whatever a page put in it. */
  secrets: () => readonly string[];
}

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>openapi-mcp console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_PATH}/assets/console.css">
<script type="module" src="${CONSOLE_PATH}/assets/app.js"></script>
</head>
<body><div id="app"><noscript>The console needs JavaScript.</noscript></div></body>
</html>
`;

export class Console implements HttpMount {
  readonly prefix = CONSOLE_PATH;
  private readonly admins: ConsoleAdmins;
  private readonly sessions: ConsoleSessions;
  private readonly assets = new ConsoleAssets();
  /** Requests being answered (a long poll may wait 25 s): ended at shutdown rather than waited for. */
  private readonly open = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: ConsoleOptions) {
    this.admins = new ConsoleAdmins({
      oauth: options.oauth,
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    });
    this.sessions = new ConsoleSessions({ secure: options.secure, path: CONSOLE_PATH });
  }

  async handle(request: MountRequest) {
    const { req, res } = request;
    const url = new URL(req.url ?? "/", "http://console.invalid");
    const path = url.pathname.slice(CONSOLE_PATH.length);
    const method = req.method ?? "GET";
    if (path.startsWith("/api/")) return this.api({ request, path: path.slice(5), query: url.searchParams });
    if (method !== "GET" && method !== "HEAD") return this.json(res, 405, { error: "Method not allowed" });
    if (path === "") return void res.writeHead(308, { location: `${CONSOLE_PATH}/` }).end();
    if (path === "/") return sendText({ res, status: 200, type: "text/html; charset=utf-8", text: SHELL });
    const asset = await this.assets.get(path);
    if (!asset) return sendText({ res, status: 404, type: "text/plain; charset=utf-8", text: "Not found\n" });
    sendText({ res, status: 200, type: asset.type, text: asset.text, cache: "no-cache" });
  }

  private async api({
    request,
    path,
    query,
  }: {
    request: MountRequest;
    path: string;
    query: URLSearchParams;
  }): Promise<void> {
    const { req, res } = request;
    const post = req.method === "POST";
    if (!post && req.method !== "GET") return this.json(res, 405, { error: "Method not allowed" });
    // A page of another site may send a POST with the admin's cookie (SameSite aside); it cannot say it is this site.
    if (post && !sameOrigin(req)) return this.json(res, 403, { error: "Refused: a cross-site request." });
    if (path === "login" && post)
      return logIn({
        request,
        admins: this.admins,
        sessions: this.sessions,
        answer: ({ status, json, headers }) => this.json(res, status, json, headers),
      });
    const session = this.sessions.find(req);
    if (!session) return this.json(res, 401, { error: "Log in to the console first." });
    if (post && !this.sessions.csrfHolds(req, session))
      return this.json(res, 403, { error: "Refused: the request lacks this session's CSRF token." });
    if (path === "session" && !post) return this.json(res, 200, sessionJson(session));
    if (path === "logout" && post)
      return this.json(res, 200, { ok: true }, { "set-cookie": this.sessions.end(session) });
    const [name = "", ...rest] = path.split("/").map((part) => safeDecode(part));
    const page = this.options.pages.find((p) => p.name === name);
    const handler = post ? page?.post : page?.get;
    if (!page || !handler) return this.json(res, 404, { error: "Not found" });
    await this.answer({ request, page, post, handler, path: rest, query, admin: session.admin });
  }

  private async answer({
    request: { req, res, readBody, log },
    page,
    post,
    handler,
    path,
    query,
    admin,
  }: {
    request: MountRequest;
    page: ConsolePage;
    post: boolean;
    handler: NonNullable<ConsolePage["get"]>;
    path: string[];
    query: URLSearchParams;
    admin: Admin;
  }): Promise<void> {
    // An OAuth admin's bodies count with the bodies their access token sends to `/mcp`.
    const owner = admin.how === "oauth" ? admin.who : `console:${admin.who}`;
    const body: JsonBody = post
      ? await readJson({ req, readBody, limit: MAX_API_BODY_BYTES, owner })
      : { outcome: "read", json: undefined };
    if (body.outcome === "aborted") return;
    if (body.outcome === "refused")
      return this.json(res, body.refused.status, { error: body.refused.error }, body.refused.headers);
    const aborted = new AbortController();
    res.on("close", () => aborted.abort());
    if (this.closed) aborted.abort();
    this.open.add(aborted);
    try {
      const view = this.options.view();
      const answer = await handler.call(page, { path, query, body: body.json, admin, view, signal: aborted.signal });
      this.json(res, answer.status ?? 200, answer.json);
    } catch (error) {
      log(`console: ${page.name} failed: ${messageOf(error)}`);
      this.json(res, 500, { error: `This request could not be completed: ${messageOf(error)}` });
    } finally {
      this.open.delete(aborted);
    }
  }

  /** At shutdown: every request still waiting (the Activity page's poll) is answered now. */
  close(): void {
    this.closed = true;
    for (const request of this.open) request.abort();
  }

  private json(res: ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}): void {
    sendJson({ res, status, json, secrets: this.options.secrets(), headers });
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
