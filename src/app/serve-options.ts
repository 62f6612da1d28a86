// What `serve` takes and what it gives back: the library's view of `openapi-mcp serve`.

import type { Catalog } from "../catalog/types.js";
import type { Registry } from "../registry/registry.js";
import type { ScriptSettings } from "../runtime/modes/code-turn.js";
import type { ServeMode } from "../runtime/modes/dynamic.js";
import type { AddressOptionNames } from "../server/listen.js";
import type { AuthConfig } from "../server/auth-config.js";
import type { RequestLimits } from "../server/bodies.js";
import type { SessionLimits } from "../server/sessions.js";
import type { EngineSetupOptions } from "./setup.js";

export interface ServeOptions extends EngineSetupOptions {
  transport?: "stdio" | "http";
  host?: string;
  port?: number;
  stateless?: boolean;
  /**
   * tools (default): one MCP tool per operation; dynamic: search_tools, describe_tool and call_tool; code:
   * search_tools, describe_tools and execute (a script calling the tools).
   */
  mode?: ServeMode;
  /** Code mode's limits on a script run; the settings file's apply where these are left out. */
  script?: Partial<ScriptSettings>;
  /** Who may use the HTTP endpoint: static bearer tokens, or OAuth access tokens checked against an issuer. */
  auth?: AuthConfig | undefined;
  /** Serve a non-loopback host without endpoint auth (refused otherwise); warns on every start. */
  allowUnauthenticated?: boolean;
  /** Idle expiry and caps of HTTP sessions; the settings file's apply where these are left out. */
  sessions?: SessionLimits;
  /** Time to receive an HTTP request and bytes of bodies still arriving; the settings file's apply where left out. */
  requests?: RequestLimits;
  /** How the user sets the port and host, for the messages when they cannot be used. */
  optionNames?: AddressOptionNames;
  /** The admin console at /console (HTTP only); the settings file's `console` applies where this is left out. */
  console?: boolean;
  /** The variable holding the console's admin token (`--console-token-env`). */
  consoleTokenEnv?: string;
  /**
   * A directory of sources served as a registry: each added, changed or removed source is checked and published
   * without a restart (registry/registry.ts). Sources given beside it are refused.
   */
  registry?: string;
  /** Watch the given sources and publish their changes as a registry does. */
  watch?: boolean;
}

export interface RunningServer {
  catalog: Catalog;
  mode: ServeMode;
  /** The MCP endpoint over HTTP. */
  url?: string;
  close(): Promise<void>;
  /** Settles when a stdio session ends (the client went away). */
  closed?: Promise<void>;
  /** With --registry or --watch: what is published (status()), and publish() into the directory. */
  registry?: Registry;
}
