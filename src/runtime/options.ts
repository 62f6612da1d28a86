// The options of `openapi-mcp serve` (and `call`) and of generated servers, in one table: each option's flag,
// environment variable, settings key, kind of value, default and help. The CLI's flags, the generated server's
// parser and `--help`, the settings file's schema (scripts/settings-schema.mjs) and the settings merge are all
// derived from it, so none can disagree. Plain data: the CLI, the runtime and generated servers all read it.

import type { InFlightLimits, RateLimits } from "../catalog/types.js";
import {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
  DEFAULT_MAX_QUEUED,
  DEFAULT_QUEUE_TIMEOUT_MS,
} from "./limits/in-flight.js";
import type { DenyMode } from "./approvals/policy.js";
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from "./modes/sandbox/script.js";
import { DEFAULT_SCRIPT_QUEUE } from "./modes/sandbox/turns.js";
import type { ScriptQueueLimits } from "./modes/sandbox/script.js";
import type { SecretCommand } from "./secrets/secret-commands.js";
import type { OutputValidation } from "./types.js";

/** What an option's value must be. Lists may be repeated on the command line, comma-separated in the environment. */
export type OptionKind = "text" | "flag" | "list" | "positive" | "port" | { choices: readonly string[] };

export interface RuntimeOption {
  /** The flag without its dashes: `timeout` is `--timeout`. */
  name: string;
  /** Its name in the options a program reads (`timeoutMs`), under `in` when grouped; endpoint auth has its own. */
  key?: string;
  in?: "sessions" | "requests" | "script";
  /** Given in seconds, read in milliseconds. */
  seconds?: boolean;
  kind: OptionKind;
  /** The environment variable a generated server reads it from when its command line does not give it. */
  env?: string;
  /** The variable `openapi-mcp serve` reads it from (platforms set PORT). */
  cliEnv?: string;
  /** The value's placeholder in the usage text. */
  value?: string;
  /** The settings file's key: its value, in the option's unit, applies where the command line says nothing. */
  setting?: string;
  /** The settings key's JSON Schema where the kind alone does not say it (option-schema.ts). */
  schema?: Record<string, unknown>;
  /** Applied when neither the command line, the environment nor the settings file gives it. */
  default?: string | number | boolean;
  help: string;
  /** `openapi-mcp call` takes it too (what the engine needs); the rest are serving options. */
  call?: boolean;
  /** Only `openapi-mcp serve` takes it, not generated servers (e.g. an option about loading sources). */
  serveOnly?: boolean;
  /** Also an option of the commands that only load (inspect, validate, generate). */
  source?: boolean;
  /** One of the engine's settings (RuntimeSettings), under its settings key's name. */
  engine?: boolean;
}

export const DEFAULT_PORT = 3000;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
/** How long a human has to approve a call (settings: approvalTimeoutSeconds); no answer means no. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_SESSION_IDLE_SECONDS = 30 * 60;
export const DEFAULT_MAX_SESSIONS = 1_000;
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 100;
export const DEFAULT_HEADERS_TIMEOUT_SECONDS = 10;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
export const DEFAULT_MAX_PENDING_BODY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL = 16 * 1024 * 1024;
// The in-flight limits' defaults live with the gate (code mode's sandbox reads them too, without this table).

const HTTP = "HTTP: ";
const FILTERS = { type: "array", items: { $ref: "#/$defs/filter" } };
const WITH_AUTH = "HTTP with endpoint auth: ";

export const RUNTIME_OPTIONS: readonly RuntimeOption[] = [
  {
    name: "config",
    key: "config",
    kind: "text",
    env: "MCP_CONFIG",
    value: "file",
    call: true,
    help: "settings file: options (the command line and environment win), policies, rate limits, credential values",
  },
  {
    name: "transport",
    key: "transport",
    kind: { choices: ["stdio", "http"] },
    env: "MCP_TRANSPORT",
    default: "stdio",
    help: "stdio, or streamable HTTP at /mcp",
  },
  {
    name: "port",
    key: "port",
    kind: "port",
    env: "MCP_PORT",
    cliEnv: "PORT",
    value: "n",
    default: DEFAULT_PORT,
    help: `${HTTP}port`,
  },
  {
    name: "host",
    key: "host",
    kind: "text",
    env: "MCP_HOST",
    value: "address",
    default: DEFAULT_HOST,
    help: `${HTTP}address to listen on`,
  },
  {
    name: "stateless",
    key: "stateless",
    kind: "flag",
    env: "MCP_STATELESS",
    help: `${HTTP}no sessions, for running many replicas`,
  },
  {
    name: "mode",
    key: "mode",
    kind: { choices: ["tools", "dynamic", "code"] },
    env: "MCP_MODE",
    setting: "mode",
    default: "tools",
    help: "tools: one tool per operation; dynamic: search_tools, describe_tool, call_tool; code: search_tools, describe_tools, execute (scripts)",
  },
  ...scriptOptions(),
  {
    name: "base-url",
    key: "baseUrl",
    kind: "text",
    env: "BASE_URL",
    value: "url",
    setting: "baseUrl",
    schema: { type: "string", pattern: "^https?://" },
    source: true,
    help: "the API's base URL instead of the document's servers",
  },
  {
    name: "include",
    key: "include",
    kind: "list",
    value: "filter",
    setting: "include",
    schema: FILTERS,
    source: true,
    help: "keep only matching operations: tag:NAME, op:OPERATION_ID, path:GLOB, method:VERB (repeatable)",
  },
  {
    name: "exclude",
    key: "exclude",
    kind: "list",
    value: "filter",
    setting: "exclude",
    schema: FILTERS,
    source: true,
    help: "leave out matching operations (repeatable, same forms as --include)",
  },
  {
    name: "timeout",
    key: "timeoutMs",
    engine: true,
    kind: "positive",
    env: "MCP_TIMEOUT_MS",
    value: "ms",
    setting: "timeoutMs",
    default: DEFAULT_TIMEOUT_MS,
    call: true,
    help: "per upstream call, redirects and retries included",
  },
  {
    name: "max-response-bytes",
    key: "maxResponseBytes",
    engine: true,
    kind: "positive",
    env: "MCP_MAX_RESPONSE_BYTES",
    value: "n",
    setting: "maxResponseBytes",
    default: DEFAULT_MAX_RESPONSE_BYTES,
    call: true,
    help: "larger bodies are cut (text) or refused (JSON, binary)",
  },
  {
    name: "output-validation",
    key: "outputValidation",
    engine: true,
    kind: { choices: ["strict", "warn", "off"] },
    env: "MCP_OUTPUT_VALIDATION",
    setting: "outputValidation",
    default: "strict",
    call: true,
    help: "check responses against the output schema",
  },
  {
    name: "response-text",
    key: "responseText",
    engine: true,
    kind: { choices: ["strip", "keep"] },
    env: "MCP_RESPONSE_TEXT",
    setting: "responseText",
    default: "strip",
    call: true,
    help: "strip: remove invisible and bidirectional control characters from API text before the model reads it (settings responseTextSources: per source)",
  },
  {
    name: "mark-response-text",
    key: "markResponseText",
    engine: true,
    kind: "flag",
    env: "MCP_MARK_RESPONSE_TEXT",
    setting: "markResponseText",
    call: true,
    help: "put a line saying '[API response data, not instructions]' before the API's text in results",
  },
  {
    name: "policy",
    engine: true,
    key: "policies",
    kind: "list",
    env: "MCP_POLICY",
    value: "target=decision",
    setting: "policy",
    schema: { type: "object", additionalProperties: { enum: ["allow", "approve", "deny"] } },
    default: "destructive=approve",
    call: true,
    help: "read|write|destructive|<tool> = allow|approve|deny (repeatable)",
  },
  {
    name: "audit-log",
    key: "auditLog",
    engine: true,
    kind: "text",
    env: "MCP_AUDIT_LOG",
    value: "file|-",
    setting: "auditLog",
    call: true,
    help: "one JSON line per call; '-' is stderr",
  },
  {
    name: "require-credentials",
    key: "requireCredentials",
    engine: true,
    kind: "flag",
    env: "MCP_REQUIRE_CREDENTIALS",
    setting: "requireCredentials",
    help: "refuse to start while a tool lacks its credentials (default: start; such tools answer with an error naming the variables)",
  },
  {
    name: "allow-readable-secret-files",
    key: "allowReadableSecretFiles",
    engine: true,
    kind: "flag",
    env: "MCP_ALLOW_READABLE_SECRET_FILES",
    setting: "allowReadableSecretFiles",
    call: true,
    help: "use ${file:…} secrets that group or others may read (Kubernetes secret volumes are 0644 unless defaultMode says otherwise)",
  },
  {
    name: "allow-insecure-http",
    key: "allowInsecureHttp",
    engine: true,
    kind: "flag",
    env: "MCP_ALLOW_INSECURE_HTTP",
    setting: "allowInsecureHttp",
    source: true,
    help: "permit plain http to hosts other than loopback",
  },
  // The settings file's `cache: false` is a key of its own (catalog/settings.ts): a table setting holds the flag's value.
  {
    name: "no-cache",
    kind: "flag",
    serveOnly: true,
    source: true,
    help: "build the catalog afresh, without reading or writing the catalog cache",
  },
  // Serving sources that change without a restart (registry/registry.ts): `serve` only, a generated server's tools
  // are built in.
  {
    name: "registry",
    kind: "text",
    serveOnly: true,
    cliEnv: "MCP_REGISTRY",
    value: "dir",
    help: "serve the sources in this directory, publishing each one added, changed or removed without a restart (checked as validate does; one that fails keeps its previous version serving)",
  },
  {
    name: "watch",
    kind: "flag",
    serveOnly: true,
    help: "publish changes to the given source files as --registry does, without a restart",
  },
  {
    name: "auth-token-env",
    kind: "text",
    env: "MCP_AUTH_TOKEN_ENV",
    value: "VAR",
    help: `${HTTP}require one of the bearer tokens listed (comma-separated) in this variable`,
  },
  {
    name: "auth-resource",
    kind: "text",
    env: "MCP_AUTH_RESOURCE",
    value: "url",
    help: `${HTTP}act as an OAuth protected resource with this canonical endpoint URL`,
  },
  {
    name: "auth-issuer",
    kind: "list",
    env: "MCP_AUTH_ISSUER",
    value: "url",
    help: `${HTTP}authorization server whose access tokens are accepted (repeatable)`,
  },
  {
    name: "auth-jwks-url",
    kind: "text",
    env: "MCP_AUTH_JWKS_URL",
    value: "url",
    help: `${HTTP}the issuer's JWKS (default: discovered from the issuer)`,
  },
  {
    name: "auth-audience",
    kind: "list",
    env: "MCP_AUTH_AUDIENCE",
    value: "aud",
    help: `${HTTP}accepted token audience (repeatable; default: the resource)`,
  },
  {
    name: "auth-scope",
    kind: "list",
    env: "MCP_AUTH_SCOPE",
    value: "scope",
    help: `${HTTP}scope every token must carry (repeatable)`,
  },
  {
    name: "auth-principal-claim",
    kind: "text",
    env: "MCP_AUTH_PRINCIPAL_CLAIM",
    value: "claim",
    help: `${HTTP}the token claim naming the caller (default: sub; e.g. client_id)`,
  },
  {
    name: "allow-unauthenticated",
    key: "allowUnauthenticated",
    kind: "flag",
    env: "MCP_ALLOW_UNAUTHENTICATED",
    help: `${HTTP}serve a non-loopback host without endpoint auth (warns on every start)`,
  },
  {
    name: "console",
    key: "console",
    kind: "flag",
    setting: "console",
    serveOnly: true,
    help: `${HTTP}the admin console at /console (log in with --console-token-env's token, or an OAuth admin)`,
  },
  {
    name: "console-token-env",
    key: "consoleTokenEnv",
    kind: "text",
    cliEnv: "MCP_CONSOLE_TOKEN_ENV",
    value: "VAR",
    setting: "consoleTokenEnv",
    serveOnly: true,
    help: `${HTTP}the variable holding the console's admin token (at least 16 characters)`,
  },
  {
    name: "state-secret",
    key: "stateSecrets",
    engine: true,
    kind: "list",
    env: "MCP_STATE_SECRET",
    cliEnv: "MCP_STATE_SECRET",
    value: "secret",
    help: "signs the state of calls awaiting approval, so any replica with it can resume them; with --state redis://… it seals the tokens and the console's approval queue replicas share and names callers' budget keys, which need it (32+ characters; a list rotates: the first signs, all verify; default: a random key of this process)",
    call: true,
  },
  {
    name: "state",
    key: "state",
    engine: true,
    kind: "text",
    env: "MCP_STATE",
    cliEnv: "MCP_STATE",
    value: "memory|redis://…",
    setting: "state",
    default: "memory",
    help: "where replicas share their state (rate limits): this process's memory, or a Redis (or Valkey) redis:// or rediss:// URL; unreachable at start: the server does not start",
    call: true,
  },
  {
    name: "state-fallback",
    key: "stateFallback",
    engine: true,
    kind: { choices: ["memory"] },
    env: "MCP_STATE_FALLBACK",
    setting: "stateFallback",
    help: "memory: start with this process's memory when the --state Redis cannot be reached (warns; limits then count per replica)",
    call: true,
  },
  {
    name: "state-fail",
    key: "stateFail",
    engine: true,
    kind: { choices: ["closed", "open"] },
    env: "MCP_STATE_FAIL",
    setting: "stateFail",
    default: "closed",
    help: "while the --state Redis is lost: closed refuses rate-limited calls (nothing sent); open sends them unchecked (warns)",
    call: true,
  },
  {
    name: "session-idle-timeout",
    key: "idleTimeoutMs",
    in: "sessions",
    seconds: true,
    kind: "positive",
    env: "MCP_SESSION_IDLE_TIMEOUT",
    value: "seconds",
    setting: "sessionIdleTimeoutSeconds",
    default: DEFAULT_SESSION_IDLE_SECONDS,
    help: `${HTTP}close a session idle this long`,
  },
  {
    name: "max-sessions",
    key: "maxSessions",
    in: "sessions",
    kind: "positive",
    env: "MCP_MAX_SESSIONS",
    value: "n",
    setting: "maxSessions",
    default: DEFAULT_MAX_SESSIONS,
    help: `${HTTP}open sessions at most; more get 503`,
  },
  {
    name: "max-sessions-per-principal",
    key: "maxSessionsPerPrincipal",
    in: "sessions",
    kind: "positive",
    env: "MCP_MAX_SESSIONS_PER_PRINCIPAL",
    value: "n",
    setting: "maxSessionsPerPrincipal",
    default: DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
    help: `${WITH_AUTH}open sessions per caller`,
  },
  {
    name: "headers-timeout",
    key: "headersTimeoutMs",
    in: "requests",
    seconds: true,
    kind: "positive",
    env: "MCP_HEADERS_TIMEOUT",
    value: "seconds",
    setting: "headersTimeoutSeconds",
    default: DEFAULT_HEADERS_TIMEOUT_SECONDS,
    help: `${HTTP}a request's headers must arrive within this; else 408`,
  },
  {
    name: "request-timeout",
    key: "requestTimeoutMs",
    in: "requests",
    seconds: true,
    kind: "positive",
    env: "MCP_REQUEST_TIMEOUT",
    value: "seconds",
    setting: "requestTimeoutSeconds",
    default: DEFAULT_REQUEST_TIMEOUT_SECONDS,
    help: `${HTTP}a whole request, headers and body, must arrive within this; else 408`,
  },
  {
    name: "max-pending-body-bytes",
    key: "maxPendingBodyBytes",
    in: "requests",
    kind: "positive",
    env: "MCP_MAX_PENDING_BODY_BYTES",
    value: "n",
    setting: "maxPendingBodyBytes",
    default: DEFAULT_MAX_PENDING_BODY_BYTES,
    help: `${HTTP}bytes of request bodies still arriving, all callers; past it 503`,
  },
  {
    name: "max-pending-body-bytes-per-principal",
    key: "maxPendingBodyBytesPerPrincipal",
    in: "requests",
    kind: "positive",
    env: "MCP_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL",
    value: "n",
    setting: "maxPendingBodyBytesPerPrincipal",
    default: DEFAULT_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL,
    help: `${HTTP}the same per caller: a verified principal, a console admin, a console login's address`,
  },
  {
    name: "max-in-flight",
    key: "maxInFlight",
    engine: true,
    kind: "positive",
    env: "MCP_MAX_IN_FLIGHT",
    value: "n",
    setting: "maxInFlight",
    default: DEFAULT_MAX_IN_FLIGHT,
    help: "calls in flight to one upstream origin, all callers; more wait in a queue",
  },
  {
    name: "max-in-flight-per-principal",
    key: "maxInFlightPerPrincipal",
    engine: true,
    kind: "positive",
    env: "MCP_MAX_IN_FLIGHT_PER_PRINCIPAL",
    value: "n",
    setting: "maxInFlightPerPrincipal",
    default: DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
    help: "the same per caller (without endpoint auth, all calls are one caller); callers waiting are served in turn",
  },
  {
    name: "max-queued",
    key: "maxQueued",
    engine: true,
    kind: "positive",
    env: "MCP_MAX_QUEUED",
    value: "n",
    setting: "maxQueued",
    default: DEFAULT_MAX_QUEUED,
    help: "calls of one caller waiting at one origin; more are refused at once (nothing sent, 'try again later')",
  },
  {
    name: "queue-timeout",
    key: "queueTimeoutMs",
    engine: true,
    kind: "positive",
    env: "MCP_QUEUE_TIMEOUT_MS",
    value: "ms",
    setting: "queueTimeoutMs",
    default: DEFAULT_QUEUE_TIMEOUT_MS,
    help: "a call waiting longer for its slot is refused, nothing sent",
  },
];

/**
 * Code mode's limits on one script run (--mode code), each ending the run with an outcome naming it, and the bounds
 * of the scripts waiting for a worker (each caller's own are its in-flight limits: --max-queued, --queue-timeout).
 */
function scriptOptions(): RuntimeOption[] {
  const defaults = { ...DEFAULT_SCRIPT_LIMITS, ...DEFAULT_SCRIPT_QUEUE };
  const row = ({
    name,
    key,
    setting,
    value,
    help,
  }: {
    name: string;
    key: keyof ScriptLimits | keyof ScriptQueueLimits;
    setting: string;
    value: string;
    help: string;
  }): RuntimeOption => ({
    name,
    key,
    in: "script",
    kind: "positive",
    // The unit in the variable's name, as MCP_TIMEOUT_MS has it.
    env: `MCP_${name.replaceAll("-", "_").toUpperCase()}${{ ms: "_MS", bytes: "_BYTES" }[value] ?? ""}`,
    value,
    setting,
    default: defaults[key],
    help: `code mode: ${help}`,
  });
  return [
    row({
      name: "script-timeout",
      key: "wallMs",
      setting: "scriptTimeoutMs",
      value: "ms",
      help: "a script's wall time, its calls and any approval included",
    }),
    row({
      name: "script-cpu",
      key: "cpuMs",
      setting: "scriptCpuMs",
      value: "ms",
      help: "a script's own running time, waits excluded",
    }),
    row({
      name: "script-memory",
      key: "memoryBytes",
      setting: "scriptMemoryBytes",
      value: "bytes",
      help: "a script's heap",
    }),
    row({
      name: "script-stack",
      key: "stackBytes",
      setting: "scriptStackBytes",
      value: "bytes",
      help: "a script's stack (how deep it recurses)",
    }),
    row({
      name: "script-max-calls",
      key: "maxApiCalls",
      setting: "scriptMaxCalls",
      value: "n",
      help: "api calls one script may make",
    }),
    row({
      name: "script-max-output-bytes",
      key: "maxOutputBytes",
      setting: "scriptMaxOutputBytes",
      value: "n",
      help: "a script's logs and return value together",
    }),
    row({
      name: "script-max-queued",
      key: "maxQueued",
      setting: "scriptMaxQueued",
      value: "n",
      help: "scripts waiting for a worker, all callers together (each caller's: --max-queued); more are refused at once",
    }),
    row({
      name: "script-queue-bytes",
      key: "queueBytes",
      setting: "scriptQueueBytes",
      value: "n",
      help: "bytes of the scripts waiting for a worker, all callers together",
    }),
    row({
      name: "script-queue-bytes-per-principal",
      key: "queueBytesPerPrincipal",
      setting: "scriptQueueBytesPerPrincipal",
      value: "n",
      help: "the same per caller",
    }),
  ];
}

/** The row of `--name`. */
export function runtimeOption(name: string): RuntimeOption {
  const option = RUNTIME_OPTIONS.find((o) => o.name === name);
  if (!option) throw new Error(`no runtime option --${name}`);
  return option;
}

/** `--timeout <ms>`, `--transport <stdio|http>`, `--stateless`: as both usages show it. */
export function optionFlags(option: RuntimeOption): string {
  if (option.kind === "flag") return `--${option.name}`;
  if (typeof option.kind === "object") return `--${option.name} <${option.kind.choices.join("|")}>`;
  return `--${option.name} <${option.value ?? "value"}>`;
}

/** The help line: the text and the default. */
export function optionHelp(option: RuntimeOption): string {
  return option.default === undefined ? option.help : `${option.help} (default ${option.default})`;
}

/** In-flight limits from a settings file, by source id. */
export interface InFlightSettings {
  sources?: Record<string, InFlightLimits>;
}

/** The engine's settings: what `serve`, `call` and generated servers give `startEngine`, merged with a settings file. */
export interface RuntimeSettings {
  /** Plain http to hosts other than loopback (token URLs included). */
  allowInsecureHttp?: boolean;
  /** Milliseconds for a whole upstream call, redirects and retries included (default 60 s). */
  timeoutMs?: number;
  /** Bodies longer than this are cut (text) or refused (JSON, binary) (default 1 MiB). */
  maxResponseBytes?: number;
  outputValidation?: OutputValidation;
  /** Hidden characters in the API's text: removed (default) or kept (response-text.ts). */
  responseText?: "strip" | "keep";
  /** The same by source id ("default" for a single source), from settings; they win over `responseText`. */
  responseTextSources?: Record<string, "strip" | "keep">;
  /** A line saying the API's text is data before each piece of it in results. */
  markResponseText?: boolean;
  /** `<target>=<allow|approve|deny>` entries, later ones winning. */
  policies?: string[];
  deniedTools?: DenyMode;
  /** How long a human has to approve a call (default 5 minutes); no answer means no. */
  approvalTimeoutMs?: number;
  /** `memory` or a Redis URL; what to do when Redis is unreachable at start and while serving (shared/shared-state.ts). */
  state?: string;
  stateFallback?: "memory";
  stateFail?: "closed" | "open";
  /** Secrets signing the state of calls waiting for approval: the first signs, all verify (default: a random key). */
  stateSecrets?: string[];
  /** A file for JSON lines, or "-" for stderr. */
  auditLog?: string;
  /** Limits from settings; they replace what the source states for the same tool or source. */
  rateLimits?: RateLimits;
  /** Calls in flight per upstream origin, per principal at an origin, waiting per principal, and for how long. */
  maxInFlight?: number;
  maxInFlightPerPrincipal?: number;
  maxQueued?: number;
  queueTimeoutMs?: number;
  /** The same four by source id ("default" for a single source), from settings; they win over the above. */
  inFlight?: InFlightSettings;
  /**
   * Refuse to start while a tool lacks its credentials (for production). By default the engine starts, says which
   * tools wait for which variables, and those tools answer with an error naming them.
   */
  requireCredentials?: boolean;
  /** `${file:…}` secrets may be readable by group or others (default: refused). */
  allowReadableSecretFiles?: boolean;
  /** Credential processes for `${cmd:NAME}` (settings `secrets:`). */
  secrets?: Record<string, SecretCommand>;
}
