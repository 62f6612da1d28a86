// A console page's server side: one JSON API under /console/api/<name>, answered for a logged-in admin only (the
// session and, for a POST, the CSRF token and same-origin checks come first, in console.ts). A page's browser side
// is one module in ui/ registered in ui/app.js. Adding a page is adding these two.

import type { Catalog } from "../catalog/types.js";
import type { Settings } from "../catalog/settings.js";
import type { Engine } from "../runtime/engine.js";
import type { Admin } from "./admins.js";

/** What the console shows and calls through: read on every request, so a catalog swapped in is seen at once. */
export interface ConsoleView {
  engine: Engine;
  catalog: Catalog;
  settings?: Settings;
}

export interface PageRequest {
  /** The path below /console/api/<name>, split at `/` and decoded. */
  path: string[];
  query: URLSearchParams;
  /** A POST's JSON body. */
  body?: unknown;
  admin: Admin;
  view: ConsoleView;
  /** Aborted when the browser goes away. */
  signal: AbortSignal;
}

export interface PageAnswer {
  status?: number;
  json: unknown;
}

export interface ConsolePage {
  name: string;
  get?(request: PageRequest): Promise<PageAnswer>;
  post?(request: PageRequest): Promise<PageAnswer>;
}
