// A generated server's command line and environment, read into its settings and checked the way `openapi-mcp serve`
// checks its own (choices, whole numbers, ports, policy entries, auth combinations). A mistake is a UserError (code
// E_OPTION) naming where the value came from, the option or the environment variable, never a stack trace.

import { parseArgs } from "node:util";
import { UserError } from "../catalog/errors.js";
import type { Settings } from "../catalog/settings.js";
import type { ServeMode } from "../runtime/dynamic.js";
import { nearMatches } from "../runtime/policy.js";
import type { OutputValidation } from "../runtime/types.js";
import type { AuthConfig } from "./auth.js";
import { type OptionKind, SERVER_OPTIONS, type ServerOption } from "./options.js";
import type { RequestLimits } from "./bodies.js";
import type { SessionLimits } from "./sessions.js";

export interface ServerSettings {
  /** The settings file to read (`--config`): its options apply where these and the environment say nothing. */
  config?: string;
  transport: "stdio" | "http";
  host: string;
  port: number;
  stateless: boolean;
  mode: ServeMode;
  baseUrl?: string;
  include: string[];
  exclude: string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
  outputValidation?: OutputValidation;
  policies: string[];
  auditLog?: string;
  allowInsecureHttp: boolean;
  auth?: AuthConfig;
  allowUnauthenticated: boolean;
  sessions: SessionLimits;
  requests: RequestLimits;
  /** Set only when given, so that a settings file's `requireCredentials` can apply. */
  requireCredentials?: boolean;
}

/** The options a settings file can give a generated server, under its own names (engine options: runtime/settings.ts). */
const FROM_FILE: Record<string, (file: Settings) => { key: string; value: unknown }> = {
  mode: (file) => ({ key: "mode", value: file.mode }),
  "base-url": (file) => ({ key: "baseUrl", value: file.baseUrl }),
  include: (file) => ({ key: "include", value: file.include }),
  exclude: (file) => ({ key: "exclude", value: file.exclude }),
  "allow-insecure-http": (file) => ({ key: "allowInsecureHttp", value: file.allowInsecureHttp }),
  "session-idle-timeout": (file) => ({ key: "sessionIdleTimeoutSeconds", value: file.sessionIdleTimeoutSeconds }),
  "max-sessions": (file) => ({ key: "maxSessions", value: file.maxSessions }),
  "max-sessions-per-principal": (file) => ({ key: "maxSessionsPerPrincipal", value: file.maxSessionsPerPrincipal }),
  "headers-timeout": (file) => ({ key: "headersTimeoutSeconds", value: file.headersTimeoutSeconds }),
  "request-timeout": (file) => ({ key: "requestTimeoutSeconds", value: file.requestTimeoutSeconds }),
  "max-pending-body-bytes": (file) => ({ key: "maxPendingBodyBytes", value: file.maxPendingBodyBytes }),
  "max-pending-body-bytes-per-principal": (file) => ({ key: "maxPendingBodyBytesPerPrincipal", value: file.maxPendingBodyBytesPerPrincipal }),
};

/** Settings that shape the catalog: built into a generated server, so they apply when it is generated. */
const GENERATION_ONLY: Array<keyof Settings> = ["serverVariables", "auth"];

/** An option's values and where they came from (`--port`, or `MCP_PORT`), for messages. */
interface Given {
  values: string[];
  source: string;
}

const DECISION = /^[^=]*[^=\s][^=]*=\s*(allow|approve|deny)\s*$/i;

/**
 * `{ help: true }` for -h/--help; otherwise the settings, or a UserError saying what is wrong and where. With `file`
 * (the settings file `config` names, once read), its options apply where the command line and the environment
 * say nothing.
 */
export function readServerCommandLine({
  args,
  env,
  file,
}: {
  args: string[];
  env: Record<string, string | undefined>;
  file?: Settings;
}): { help: true } | { settings: ServerSettings } {
  const parsed = readArgs(args);
  if (parsed === "help") return { help: true };
  if (file) refuseGenerationOnly(file);
  const given = (name: string): Given | undefined => {
    const option = SERVER_OPTIONS.find((o) => o.name === name)!;
    const text = option.env === undefined ? undefined : env[option.env];
    if (parsed.has(name)) return parsed.get(name);
    // An empty variable (`MCP_PORT=` in an env file) counts as unset.
    if (text !== undefined && text !== "") return { values: option.kind === "list" ? text.split(",").map((v) => v.trim()).filter(Boolean) : [text], source: option.env! };
    const fromFile = file ? FROM_FILE[name]?.(file) : undefined;
    if (fromFile === undefined || fromFile.value === undefined) return undefined;
    // Checked as the same option would be (the file's schema allows what the option does not, e.g. an empty list).
    return { values: Array.isArray(fromFile.value) ? fromFile.value.map(String) : [String(fromFile.value)], source: `${file!.file}#/${fromFile.key}` };
  };
  const text = (name: string): string | undefined => given(name)?.values.at(-1);
  const checked = (name: string): string | number | boolean | undefined => {
    const found = given(name);
    return found === undefined ? undefined : check({ kind: kindOf(name), value: found.values.at(-1), source: found.source });
  };
  const list = (name: string): string[] => given(name)?.values ?? [];
  const policies = given("policy");
  for (const entry of policies?.values.flatMap((v) => v.split(",")) ?? []) {
    if (!DECISION.test(entry)) throw optionError(`${policies!.source}: '${entry.trim()}' is not <target>=<allow|approve|deny> (target: read, write, destructive or a tool name)`);
  }
  const settings: ServerSettings = {
    transport: (checked("transport") ?? "stdio") as ServerSettings["transport"],
    host: text("host") ?? "127.0.0.1",
    port: (checked("port") ?? 3000) as number,
    stateless: checked("stateless") === true,
    mode: (checked("mode") ?? "tools") as ServeMode,
    include: list("include"),
    exclude: list("exclude"),
    policies: list("policy"),
    allowInsecureHttp: checked("allow-insecure-http") === true,
    allowUnauthenticated: checked("allow-unauthenticated") === true,
    sessions: {},
    requests: {},
  };
  const idle = checked("session-idle-timeout") as number | undefined;
  if (idle !== undefined) settings.sessions.idleTimeoutMs = idle * 1000;
  const maxSessions = checked("max-sessions") as number | undefined;
  if (maxSessions !== undefined) settings.sessions.maxSessions = maxSessions;
  const perPrincipal = checked("max-sessions-per-principal") as number | undefined;
  if (perPrincipal !== undefined) settings.sessions.maxSessionsPerPrincipal = perPrincipal;
  const headersTimeout = checked("headers-timeout") as number | undefined;
  if (headersTimeout !== undefined) settings.requests.headersTimeoutMs = headersTimeout * 1000;
  const requestTimeout = checked("request-timeout") as number | undefined;
  if (requestTimeout !== undefined) settings.requests.requestTimeoutMs = requestTimeout * 1000;
  const pending = checked("max-pending-body-bytes") as number | undefined;
  if (pending !== undefined) settings.requests.maxPendingBodyBytes = pending;
  const pendingPerPrincipal = checked("max-pending-body-bytes-per-principal") as number | undefined;
  if (pendingPerPrincipal !== undefined) settings.requests.maxPendingBodyBytesPerPrincipal = pendingPerPrincipal;
  const requireCredentials = checked("require-credentials") as boolean | undefined;
  if (requireCredentials !== undefined) settings.requireCredentials = requireCredentials;
  const optional = { config: text("config"), baseUrl: text("base-url"), timeoutMs: checked("timeout"), maxResponseBytes: checked("max-response-bytes"), outputValidation: checked("output-validation"), auditLog: text("audit-log") };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(settings, { [key]: value });
  const auth = endpointAuth({ given, settings });
  if (auth) settings.auth = auth;
  return { settings };
}

function refuseGenerationOnly(file: Settings): void {
  const found = GENERATION_ONLY.filter((key) => file[key] !== undefined);
  if (found.length === 0) return;
  throw new UserError({
    code: "E_SETTINGS",
    message: `${file.file}#/${found[0]}: ${found.join(" and ")} shape the tools, which are built into this server: give them when generating it (openapi-mcp generate … --auth, --server-var); credential values go under credentials`,
  });
}

function kindOf(name: string): OptionKind {
  return SERVER_OPTIONS.find((o) => o.name === name)!.kind;
}

/** The command line's options by name, each with its values in order; "help" when help was asked for. */
function readArgs(args: string[]): Map<string, Given> | "help" {
  const config = Object.fromEntries(SERVER_OPTIONS.map((o) => [o.name, { type: o.kind === "flag" ? ("boolean" as const) : ("string" as const), multiple: true }]));
  const { tokens } = parseArgs({ args, options: { ...config, help: { type: "boolean", short: "h" } }, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((t) => t.kind === "option" && t.name === "help")) return "help";
  const found = new Map<string, Given>();
  for (const token of tokens) {
    if (token.kind === "positional") throw optionError(`unexpected argument '${token.value}': this server takes options only`);
    if (token.kind !== "option") continue;
    const option = SERVER_OPTIONS.find((o) => o.name === token.name);
    if (!option) throw optionError(unknownOption(token.rawName));
    const value = option.kind === "flag" ? flagValue(token) : textValue({ token, option });
    const entry = found.get(option.name) ?? { values: [], source: `--${option.name}` };
    entry.values.push(value);
    found.set(option.name, entry);
  }
  return found;
}

function flagValue(token: { rawName: string; value?: string | undefined }): string {
  if (token.value !== undefined) throw optionError(`${token.rawName} takes no value (it is a flag), not '${token.value}'`);
  return "true";
}

function textValue({ token, option }: { token: { rawName: string; value?: string | undefined; inlineValue?: boolean | undefined }; option: ServerOption }): string {
  // `--port --stateless`: the next option was taken for the value.
  if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
    throw optionError(`--${option.name} needs a value${typeof option.kind === "object" ? `: ${choices(option.kind.choices)}` : ""}`);
  }
  return token.value;
}

function unknownOption(raw: string): string {
  const near = nearMatches(raw.replace(/^-+/, ""), [...SERVER_OPTIONS.map((o) => o.name), "help"]);
  return `unknown option '${raw}'${near.length > 0 ? `; did you mean ${near.map((n) => `--${n}`).join(", ")}?` : ""}`;
}

/** A value checked against its kind: a number for numbers, a boolean for flags, the text otherwise. */
function check({ kind, value = "", source }: { kind: OptionKind; value?: string | undefined; source: string }): string | number | boolean {
  const wrong = (expected: string, hint = ""): UserError => optionError(`${source} must be ${expected}, not '${value}'${hint}`);
  if (kind === "flag") {
    if (value === "true" || value === "false") return value === "true";
    throw wrong("true or false");
  }
  if (kind === "positive" || kind === "port") {
    const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (kind === "positive" && !(number > 0)) throw wrong("a whole number greater than 0");
    if (kind === "port" && !(number >= 0 && number <= 65_535)) throw wrong("a port number (0-65535)");
    return number;
  }
  if (typeof kind === "object" && !kind.choices.includes(value)) {
    // Values are matched exactly, as `openapi-mcp serve` matches them; say so when only the case is off.
    const hint = kind.choices.includes(value.toLowerCase()) ? " (the values are lower case)" : "";
    throw wrong(choices(kind.choices), hint);
  }
  return value;
}

function choices(list: readonly string[]): string {
  return list.length === 2 ? `${list[0]} or ${list[1]}` : `one of ${list.join(", ")}`;
}

/** Endpoint auth from the options, refusing the combinations `serve` refuses. */
function endpointAuth({ given, settings }: { given: (name: string) => Given | undefined; settings: ServerSettings }): AuthConfig | undefined {
  const tokenEnv = given("auth-token-env");
  const resource = given("auth-resource");
  const issuers = given("auth-issuer");
  const oauth = resource ?? issuers;
  if (tokenEnv && oauth) throw optionError(`${tokenEnv.source} and ${oauth.source} are two ways of checking clients; choose one`);
  const claim = given("auth-principal-claim");
  if (claim && !oauth) throw optionError(`${claim.source} applies to OAuth endpoint auth (--auth-resource and --auth-issuer)`);
  const auth = tokenEnv ?? oauth;
  if (auth && settings.transport !== "http") throw optionError(`${auth.source} applies to HTTP (--transport http): a stdio client is the process that started the server`);
  if (tokenEnv) return { type: "static", tokenEnv: tokenEnv.values.at(-1)! };
  if (!oauth) return undefined;
  if (!resource || !issuers) throw optionError("OAuth endpoint auth needs both --auth-resource <url> and --auth-issuer <url> (or MCP_AUTH_RESOURCE and MCP_AUTH_ISSUER)");
  const jwksUrl = given("auth-jwks-url")?.values.at(-1);
  const audience = given("auth-audience")?.values ?? [];
  const scopes = given("auth-scope")?.values ?? [];
  const principalClaim = given("auth-principal-claim")?.values.at(-1);
  return {
    type: "oauth",
    resource: resource.values.at(-1)!,
    authorizationServers: issuers.values,
    ...(jwksUrl !== undefined ? { jwksUrl } : {}),
    ...(audience.length > 0 ? { audience } : {}),
    ...(scopes.length > 0 ? { requiredScopes: scopes } : {}),
    ...(principalClaim !== undefined ? { principalClaim } : {}),
    ...(settings.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  };
}

function optionError(message: string): UserError {
  return new UserError({ code: "E_OPTION", message });
}
