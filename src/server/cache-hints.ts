// How long a 2026-07-28 client may reuse what this server lists, and with whom (`ttlMs` and `cacheScope` on the
// results the specification makes cacheable; 2025 clients get neither). Read by the SDK's server (mcp.ts) and by
// the answers given before it loads (early.ts), so both say the same. No SDK import here: early.ts runs without it.

import type { CacheHint } from "@modelcontextprotocol/server";

/**
 * One hour. Without a registry or --watch the listing (and what `server/discover` says) is fixed for the life of
 * the process: it changes only when the server restarts with other sources or options. A long freshness saves
 * clients re-reading a large listing (3.4 MB for GitHub's) every turn; an hour bounds how long an HTTP client keeps
 * an old listing after a redeploy behind the same URL (a tool gone is then refused by name, "Unknown tool").
 */
export const LIST_TTL_MS = 60 * 60 * 1000;

/**
 * Ten seconds, when the tools change while serving (`serve --registry`, `--watch`): a 2026-07-28 client has no
 * session to be told on (unless it holds a subscriptions/listen stream), so it lists again this soon after a
 * publish. A call to a tool removed meanwhile is refused by name ("Unknown tool"), as after a redeploy.
 */
export const CHANGING_LIST_TTL_MS = 10 * 1000;

/** The cacheable results this server gives: other list methods are not served (no prompts or resources). */
export interface CacheHints {
  "tools/list": CacheHint;
  "server/discover": CacheHint;
}

/**
 * The hints for this server's cacheable results. "public" because today every caller is listed the same tools
 * (the listing holds no per-user data), so a shared cache may serve it across authorization contexts. Issue 14's
 * per-user profiles make the tools differ per principal: a server with them must pass `perPrincipal` (and say
 * "private"), and this is the one place that decides it.
 */
export function cacheHints({
  perPrincipal = false,
  changing = false,
}: {
  perPrincipal?: boolean;
  changing?: boolean;
} = {}): CacheHints {
  const ttlMs = changing ? CHANGING_LIST_TTL_MS : LIST_TTL_MS;
  const hint: CacheHint = { ttlMs, cacheScope: perPrincipal ? "private" : "public" };
  return { "tools/list": { ...hint }, "server/discover": { ...hint } };
}
