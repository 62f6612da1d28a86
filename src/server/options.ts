// The options of a generated server: those of `openapi-mcp serve` that make sense for a server with its tools built
// in, each also settable in the environment for containers. One table says each option's kind, variable and help,
// so `--help`, the checks and the generated README cannot disagree.

/** What an option's value must be. Lists may be repeated on the command line, comma-separated in the environment. */
export type OptionKind = "text" | "flag" | "list" | "positive" | "port" | { choices: readonly string[] };

export interface ServerOption {
  name: string;
  kind: OptionKind;
  /** The environment variable that sets it when the command line does not. */
  env?: string;
  /** The value's placeholder in the usage text. */
  value?: string;
  help: string;
}

export const SERVER_OPTIONS: readonly ServerOption[] = [
  { name: "config", kind: "text", env: "MCP_CONFIG", value: "file", help: "settings file, as openapi-mcp serve --config reads it (options here and in the environment win)" },
  { name: "transport", kind: { choices: ["stdio", "http"] }, env: "MCP_TRANSPORT", help: "stdio (default) or streamable HTTP at /mcp" },
  { name: "port", kind: "port", env: "MCP_PORT", value: "n", help: "HTTP port (default 3000)" },
  { name: "host", kind: "text", env: "MCP_HOST", value: "address", help: "HTTP address to listen on (default 127.0.0.1)" },
  { name: "stateless", kind: "flag", env: "MCP_STATELESS", help: "HTTP without sessions, for many replicas" },
  { name: "mode", kind: { choices: ["tools", "dynamic"] }, env: "MCP_MODE", help: "tools: one tool per operation (default); dynamic: search_tools, describe_tool, call_tool" },
  { name: "base-url", kind: "text", env: "BASE_URL", value: "url", help: "the API's base URL instead of the one built in" },
  { name: "include", kind: "list", value: "filter", help: "keep only matching operations: tag:NAME, op:OPERATION_ID, path:GLOB, method:VERB (repeatable)" },
  { name: "exclude", kind: "list", value: "filter", help: "leave out matching operations (repeatable, same forms as --include)" },
  { name: "timeout", kind: "positive", env: "MCP_TIMEOUT_MS", value: "ms", help: "per upstream call (default 60000)" },
  { name: "max-response-bytes", kind: "positive", env: "MCP_MAX_RESPONSE_BYTES", value: "n", help: "longer bodies are cut or refused (default 1048576)" },
  { name: "output-validation", kind: { choices: ["strict", "warn", "off"] }, env: "MCP_OUTPUT_VALIDATION", help: "check responses against the output schema (default strict)" },
  { name: "policy", kind: "list", env: "MCP_POLICY", value: "target=decision", help: "read|write|destructive|<tool> = allow|approve|deny (repeatable; default destructive=approve)" },
  { name: "audit-log", kind: "text", env: "MCP_AUDIT_LOG", value: "file|-", help: "one JSON line per call; '-' is stderr" },
  { name: "require-credentials", kind: "flag", env: "MCP_REQUIRE_CREDENTIALS", help: "refuse to start while a tool lacks its credentials (default: start; such tools answer with an error naming the variables)" },
  { name: "allow-insecure-http", kind: "flag", env: "MCP_ALLOW_INSECURE_HTTP", help: "permit plain http to hosts other than loopback" },
  { name: "auth-token-env", kind: "text", env: "MCP_AUTH_TOKEN_ENV", value: "VAR", help: "HTTP: require one of the bearer tokens listed (comma-separated) in this variable" },
  { name: "auth-resource", kind: "text", env: "MCP_AUTH_RESOURCE", value: "url", help: "HTTP: act as an OAuth protected resource with this canonical endpoint URL" },
  { name: "auth-issuer", kind: "list", env: "MCP_AUTH_ISSUER", value: "url", help: "HTTP: authorization server whose access tokens are accepted (repeatable)" },
  { name: "auth-jwks-url", kind: "text", env: "MCP_AUTH_JWKS_URL", value: "url", help: "HTTP: the issuer's JWKS (default: discovered from the issuer)" },
  { name: "auth-audience", kind: "list", env: "MCP_AUTH_AUDIENCE", value: "aud", help: "HTTP: accepted token audience (repeatable; default: the resource)" },
  { name: "auth-scope", kind: "list", env: "MCP_AUTH_SCOPE", value: "scope", help: "HTTP: scope every token must carry (repeatable)" },
  { name: "auth-principal-claim", kind: "text", env: "MCP_AUTH_PRINCIPAL_CLAIM", value: "claim", help: "HTTP: the token claim naming the caller (default: sub; e.g. client_id)" },
  { name: "allow-unauthenticated", kind: "flag", env: "MCP_ALLOW_UNAUTHENTICATED", help: "HTTP: serve a non-loopback host without endpoint auth (warns on every start)" },
  { name: "session-idle-timeout", kind: "positive", env: "MCP_SESSION_IDLE_TIMEOUT", value: "seconds", help: "HTTP: close a session idle this long (default 1800)" },
  { name: "max-sessions", kind: "positive", env: "MCP_MAX_SESSIONS", value: "n", help: "HTTP: open sessions at most; more get 503 (default 1000)" },
  { name: "max-sessions-per-principal", kind: "positive", env: "MCP_MAX_SESSIONS_PER_PRINCIPAL", value: "n", help: "HTTP with endpoint auth: open sessions per caller (default 100)" },
  { name: "headers-timeout", kind: "positive", env: "MCP_HEADERS_TIMEOUT", value: "seconds", help: "HTTP: a request's headers must arrive within this; else 408 (default 10)" },
  { name: "request-timeout", kind: "positive", env: "MCP_REQUEST_TIMEOUT", value: "seconds", help: "HTTP: a whole request, headers and body, must arrive within this; else 408 (default 30)" },
  { name: "max-pending-body-bytes", kind: "positive", env: "MCP_MAX_PENDING_BODY_BYTES", value: "n", help: "HTTP: bytes of request bodies still arriving, all callers; past it 503 (default 67108864)" },
  { name: "max-pending-body-bytes-per-principal", kind: "positive", env: "MCP_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL", value: "n", help: "HTTP with endpoint auth: the same per caller (default 16777216)" },
];

/** `node dist/index.js --help`: every option with its variable. */
export function serverUsage({ name, command = "node dist/index.js" }: { name: string; command?: string }): string {
  const rows = [...SERVER_OPTIONS.map((option) => ({ left: `--${option.name}${placeholder(option)}`, right: `${option.help}${option.env ? ` [${option.env}]` : ""}` })), { left: "-h, --help", right: "show this help" }];
  const width = Math.max(...rows.map((row) => row.left.length)) + 2;
  return [
    `${name}: an MCP server (stdio by default).`,
    "",
    `Usage: ${command} [options]`,
    "",
    "Options (each also read from the [VARIABLE] shown, when not given here; the command line wins):",
    ...rows.map((row) => `  ${row.left.padEnd(width)}${row.right}`),
    "",
    "Flags take true or false from their variable (MCP_STATELESS=true); lists are comma-separated there.",
    "",
  ].join("\n");
}

function placeholder(option: ServerOption): string {
  if (option.kind === "flag") return "";
  if (typeof option.kind === "object") return ` ${option.kind.choices.join("|")}`;
  return ` <${option.value ?? "value"}>`;
}
