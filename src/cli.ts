#!/usr/bin/env node
// The command line: commands and options, turned into library calls and an exit code. The only place that
// decides how the process ends.

import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { isUserError, UserError } from "./catalog/errors.js";
import { examplesHelp } from "./cli-examples.js";
import { listingOverBudget, TOKEN_BUDGET } from "./inspect/budget.js";
import { inspectCatalog } from "./inspect/report.js";
import { renderReport } from "./inspect/render.js";
import type { Catalog } from "./catalog/types.js";
import { type CacheOptions, loadCatalogCached } from "./load/cache.js";
import type { LoadOptions } from "./load/index.js";
import type { OutputValidation } from "./runtime/types.js";
import type { AuthConfig } from "./server/index.js";
import type { EngineSetupOptions } from "./setup.js";

// The MCP SDK, the HTTP client and the templates load only for the commands that use them (the SDK alone costs
// ~180 ms of start-up), so `inspect`, `validate` and `generate` start fast.

interface SourceFlags {
  baseUrl?: string;
  include: string[];
  exclude: string[];
  allowRef: string[];
  allowInsecureHttp?: boolean;
  auth: string[];
  serverVar: Array<[string, string]>;
  /** false with --no-cache. */
  cache: boolean;
}

interface RuntimeFlags {
  config?: string;
  timeout?: number;
  maxResponseBytes?: number;
  outputValidation?: OutputValidation;
  policy: string[];
  auditLog?: string;
}

interface ServeFlags extends RuntimeFlags {
  transport: "stdio" | "http";
  mode?: "tools" | "dynamic";
  requireCredentials?: boolean;
  port: number;
  host: string;
  stateless?: boolean;
  authTokenEnv?: string;
  authResource?: string;
  authIssuer: string[];
  authJwksUrl?: string;
  authAudience: string[];
  authScope: string[];
  authPrincipalClaim?: string;
  allowUnauthenticated?: boolean;
  sessionIdleTimeout?: number;
  maxSessions?: number;
  maxSessionsPerPrincipal?: number;
  headersTimeout?: number;
  requestTimeout?: number;
  maxPendingBodyBytes?: number;
  maxPendingBodyBytesPerPrincipal?: number;
}

interface CallFlags extends RuntimeFlags {
  args: string;
  dryRun?: boolean;
}

function runtimeSettings(flags: RuntimeFlags): EngineSetupOptions {
  return {
    ...(flags.config !== undefined ? { config: flags.config } : {}),
    ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout } : {}),
    ...(flags.maxResponseBytes !== undefined ? { maxResponseBytes: flags.maxResponseBytes } : {}),
    ...(flags.outputValidation !== undefined ? { outputValidation: flags.outputValidation } : {}),
    ...(flags.auditLog !== undefined ? { auditLog: flags.auditLog } : {}),
    policies: flags.policy,
  };
}

function authOptions(flags: ServeFlags): { auth?: AuthConfig } {
  const oauth = flags.authResource !== undefined || flags.authIssuer.length > 0;
  if (flags.authTokenEnv !== undefined && oauth) {
    throw new UserError({ code: "E_OPTION", message: "--auth-token-env and --auth-resource/--auth-issuer are two ways of checking clients; choose one" });
  }
  if ((flags.authTokenEnv !== undefined || oauth) && flags.transport !== "http") {
    throw new UserError({ code: "E_OPTION", message: "--auth-* options apply to --transport http (a stdio client is the process that started the server)" });
  }
  if (flags.authPrincipalClaim !== undefined && !oauth) {
    throw new UserError({ code: "E_OPTION", message: "--auth-principal-claim applies to OAuth endpoint auth (--auth-resource and --auth-issuer)" });
  }
  if (flags.authTokenEnv !== undefined) return { auth: { type: "static", tokenEnv: flags.authTokenEnv } };
  if (!oauth) return {};
  if (flags.authResource === undefined || flags.authIssuer.length === 0) {
    throw new UserError({ code: "E_OPTION", message: "OAuth endpoint auth needs both --auth-resource <url> and --auth-issuer <url>" });
  }
  return {
    auth: {
      type: "oauth",
      resource: flags.authResource,
      authorizationServers: flags.authIssuer,
      ...(flags.authJwksUrl !== undefined ? { jwksUrl: flags.authJwksUrl } : {}),
      ...(flags.authAudience.length > 0 ? { audience: flags.authAudience } : {}),
      ...(flags.authScope.length > 0 ? { requiredScopes: flags.authScope } : {}),
      ...(flags.authPrincipalClaim !== undefined ? { principalClaim: flags.authPrincipalClaim } : {}),
    },
  };
}

const EXIT_USER_ERROR = 1;
// A spec's author fixes errors by kind: validate shows more of each than inspect does.
const VALIDATE_PER_KIND = 10;
const EXIT_INTERNAL_ERROR = 70;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function withSourceOptions(command: Command): Command {
  return command
    .option("--base-url <url>", "use this upstream base URL instead of the document's servers")
    .option("--include <filter>", "keep only matching operations: tag:NAME, op:OPERATION_ID, path:GLOB, method:VERB (repeatable)", collect, [])
    .option("--exclude <filter>", "leave out matching operations (repeatable, same forms as --include)", collect, [])
    .option("--allow-ref <dir|url-prefix>", "let external $refs also read this directory or URL prefix (repeatable)", collect, [])
    .option("--allow-insecure-http", "permit http:// to hosts other than loopback")
    .option(
      "--auth <[source-id=]kind:…>",
      "credentials every tool of a source sends, replacing what its document declares: bearer:VAR, header:NAME:VAR, query:NAME:VAR, basic:USERVAR:PASSVAR (VAR: an environment variable's name; repeatable)",
      collect,
      [],
    )
    .option("--server-var <name=value>", "set a server variable of the document's servers (repeatable)", serverVariable, [])
    .option("--no-cache", "build the catalog afresh, without reading or writing the catalog cache");
}

function serverVariable(value: string, previous: Array<[string, string]>): Array<[string, string]> {
  const equals = value.indexOf("=");
  if (equals <= 0) throw new InvalidArgumentError("expected name=value, e.g. --server-var region=eu");
  return [...previous, [value.slice(0, equals), value.slice(equals + 1)]];
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError("must be a whole number greater than 0");
  return number;
}

function portNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new InvalidArgumentError("must be a port number (0-65535)");
  return number;
}

function loadOptions(flags: SourceFlags): LoadOptions & CacheOptions {
  return {
    ...(flags.cache === false ? { cache: false } : {}),
    // With --debug every reason an entry is not used or kept; without, once, that the cache cannot be written.
    ...(process.argv.includes("--debug")
      ? { cacheLog: (line: string) => process.stderr.write(`openapi-mcp: ${line}\n`) }
      : { cacheWarn: (line: string) => process.stderr.write(`openapi-mcp: warning: ${line} (--no-cache skips it)\n`) }),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    include: flags.include,
    exclude: flags.exclude,
    allowRefs: flags.allowRef,
    ...(flags.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    ...(flags.auth.length > 0 ? { upstreamAuth: flags.auth } : {}),
    ...(flags.serverVar.length > 0 ? { serverVariables: Object.fromEntries(flags.serverVar) } : {}),
    progress: (line) => process.stderr.write(`openapi-mcp: ${line}\n`),
  };
}

/** The catalog, from the cache when it holds it, kept there when not. */
async function load(sources: string | string[], options: LoadOptions & CacheOptions): Promise<Catalog> {
  const loaded = await loadCatalogCached(sources, options);
  await loaded.keep();
  return loaded.catalog;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const out = (text: string): void => {
    process.stdout.write(text);
  };
  const err = (text: string): void => {
    process.stderr.write(text);
  };
  const program = new Command("openapi-mcp")
    .description("Turn OpenAPI documents and custom action definitions into MCP servers.")
    .version(version())
    .addOption(new Option("--debug", "show stack traces for errors"))
    .exitOverride()
    .showSuggestionAfterError()
    // A usage mistake (a missing argument or option) ends with where to look.
    .showHelpAfterError("(see --help for the options and examples)")
    .configureOutput({ writeOut: out, writeErr: err, outputError: (text, write) => write(`openapi-mcp: ${text.replace(/^error: /, "")}`) });

  withSourceOptions(
    program
      .command("inspect")
      .description("list the tools a source becomes: their routes, classes, sizes, credentials and warnings")
      .argument("<source...>", "OpenAPI documents, action definitions or one manifest, as `serve` takes them: files or https:// URLs")
      .option("--json", "print the report as JSON"),
  ).action(async (sources: string[], flags: SourceFlags & { json?: boolean }) => {
    const report = inspectCatalog(await load(sources, loadOptions(flags)));
    out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    if (report.errors.length > 0) exitCode = EXIT_USER_ERROR;
  });

  withSourceOptions(
    program
      .command("validate")
      .description("check a source as its author would: schema violations are errors, each with its line; exits 1 on errors")
      .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
      .option("--strict", "also exit 1 on warnings (for CI)"),
  ).action(async (source: string, flags: SourceFlags & { strict?: boolean }) => {
    const report = inspectCatalog(await load(source, { ...loadOptions(flags), checkConformance: true }));
    out(renderReport(report, { tools: false, perKind: VALIDATE_PER_KIND }));
    const { errors, warnings } = report;
    const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;
    if (errors.length > 0 || (flags.strict && warnings.length > 0)) {
      exitCode = EXIT_USER_ERROR;
      const counted = errors.length > 0 ? count(errors.length, "error") : `${count(warnings.length, "warning")} (--strict)`;
      err(`openapi-mcp: ${source}: ${counted}${errors.length > 0 && flags.strict && warnings.length > 0 ? `, ${count(warnings.length, "warning")}` : ""}\n`);
    } else {
      out(`${source}: valid${warnings.length > 0 ? `, with ${count(warnings.length, "warning")}` : ""}\n`);
    }
  });

  // No defaults here: an option left out may come from the settings file; the engine applies the defaults.
  const runtimeOptions = (command: Command): Command =>
    command
      .option("--config <file>", "settings file: options, policies, rate limits, credential values")
      .option("--timeout <ms>", "per upstream call, redirects and retries included (default 60000)", positiveInteger)
      .option("--max-response-bytes <n>", "larger bodies are cut (text) or refused (JSON, binary) (default 1048576)", positiveInteger)
      .addOption(new Option("--output-validation <mode>", "check responses against the output schema (default strict)").choices(["strict", "warn", "off"]))
      .option("--policy <target=decision>", "read|write|destructive|<tool> = allow|approve|deny (repeatable; default destructive=approve)", collect, [])
      .option("--audit-log <file|->", "one JSON line per call; '-' is stderr");

  runtimeOptions(
    withSourceOptions(
      program
        .command("serve")
        .description("serve the source(s) as an MCP server (stdio by default)")
        .argument("<source...>", "OpenAPI documents, action definitions or one manifest: files or https:// URLs")
        .addOption(new Option("--transport <kind>", "how clients connect").choices(["stdio", "http"]).default("stdio"))
        .addOption(new Option("--mode <mode>", "tools: one tool per operation (default); dynamic: search_tools, describe_tool, call_tool").choices(["tools", "dynamic"]))
        .addOption(new Option("--port <n>", "HTTP port").env("PORT").argParser(portNumber).default(3000))
        .option("--host <address>", "HTTP address to listen on", "127.0.0.1")
        .option("--stateless", "HTTP without sessions, for running many replicas")
        .option("--require-credentials", "refuse to start while a tool lacks its credentials (default: start; such tools answer with an error naming the variables)")
        .option("--auth-token-env <VAR>", "HTTP: require one of the bearer tokens listed (comma-separated) in this variable")
        .option("--auth-resource <url>", "HTTP: act as an OAuth protected resource with this canonical endpoint URL")
        .option("--auth-issuer <url>", "HTTP: authorization server whose access tokens are accepted (repeatable)", collect, [])
        .option("--auth-jwks-url <url>", "HTTP: the issuer's JWKS (default: discovered from the issuer)")
        .option("--auth-audience <aud>", "HTTP: accepted token audience (repeatable; default: the resource)", collect, [])
        .option("--auth-scope <scope>", "HTTP: scope every token must carry (repeatable)", collect, [])
        .option("--auth-principal-claim <claim>", "HTTP: the token claim naming the caller (default: sub; e.g. client_id)")
        .option("--allow-unauthenticated", "HTTP: serve a non-loopback --host without endpoint auth (warns on every start)")
        .option("--session-idle-timeout <seconds>", "HTTP: close a session idle this long (default 1800)", positiveInteger)
        .option("--max-sessions <n>", "HTTP: open sessions at most; more get 503 (default 1000)", positiveInteger)
        .option("--max-sessions-per-principal <n>", "HTTP with endpoint auth: open sessions per caller (default 100)", positiveInteger)
        .option("--headers-timeout <seconds>", "HTTP: a request's headers must arrive within this; else 408 (default 10)", positiveInteger)
        .option("--request-timeout <seconds>", "HTTP: a whole request, headers and body, must arrive within this; else 408 (default 30)", positiveInteger)
        .option("--max-pending-body-bytes <n>", "HTTP: bytes of request bodies still arriving, all callers; past it 503 (default 67108864)", positiveInteger)
        .option("--max-pending-body-bytes-per-principal <n>", "HTTP with endpoint auth: the same per caller (default 16777216)", positiveInteger),
    ),
  ).action(async (sources: string[], flags: SourceFlags & ServeFlags) => {
    const { serve } = await import("./serve.js");
    const running = await serve(sources, {
      ...loadOptions(flags),
      ...runtimeSettings(flags),
      transport: flags.transport,
      port: flags.port,
      host: flags.host,
      stateless: flags.stateless === true,
      ...(flags.mode ? { mode: flags.mode } : {}),
      ...(flags.requireCredentials ? { requireCredentials: true } : {}),
      ...authOptions(flags),
      ...(flags.allowUnauthenticated ? { allowUnauthenticated: true } : {}),
      sessions: {
        ...(flags.sessionIdleTimeout !== undefined ? { idleTimeoutMs: flags.sessionIdleTimeout * 1000 } : {}),
        ...(flags.maxSessions !== undefined ? { maxSessions: flags.maxSessions } : {}),
        ...(flags.maxSessionsPerPrincipal !== undefined ? { maxSessionsPerPrincipal: flags.maxSessionsPerPrincipal } : {}),
      },
      requests: {
        ...(flags.headersTimeout !== undefined ? { headersTimeoutMs: flags.headersTimeout * 1000 } : {}),
        ...(flags.requestTimeout !== undefined ? { requestTimeoutMs: flags.requestTimeout * 1000 } : {}),
        ...(flags.maxPendingBodyBytes !== undefined ? { maxPendingBodyBytes: flags.maxPendingBodyBytes } : {}),
        ...(flags.maxPendingBodyBytesPerPrincipal !== undefined ? { maxPendingBodyBytesPerPrincipal: flags.maxPendingBodyBytesPerPrincipal } : {}),
      },
      optionNames: { port: "PORT or --port", host: "--host" },
    });
    const count = running.catalog.tools.length;
    const tools = `${count} tool${count === 1 ? "" : "s"}${running.mode === "dynamic" ? " through search_tools, describe_tool and call_tool" : ""}`;
    if (running.url) {
      err(`openapi-mcp: serving ${tools} at ${running.url} (streamable HTTP${flags.stateless ? ", stateless" : ""}); Ctrl-C stops\n`);
    } else {
      err(`openapi-mcp: serving ${tools} over stdio\n`);
    }
    await new Promise<void>((resolve, reject) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
      running.closed?.then(resolve, reject);
    });
    await running.close();
  });

  runtimeOptions(
    withSourceOptions(
      program
        .command("call")
        .description("call one tool: shows the request (secrets masked), then the result as an agent receives it")
        .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
        .argument("<tool>", "the tool's name, as `inspect` lists it")
        .option("--args <json>", "the arguments, a JSON object", "{}")
        .option("--dry-run", "show the request without sending it"),
    ),
  ).action(async (source: string, tool: string, flags: SourceFlags & CallFlags) => {
    let args: unknown;
    try {
      args = JSON.parse(flags.args);
    } catch (error) {
      throw new UserError({ code: "E_OPTION", message: `--args is not valid JSON: ${(error as Error).message}` });
    }
    const { callTool } = await import("./call.js");
    const report = await callTool(source, { ...loadOptions(flags), ...runtimeSettings(flags), tool, args, dryRun: flags.dryRun === true });
    if (report.request) out(`${flags.dryRun ? "Would send" : "Request"}:\n${report.request}\n\n`);
    if (report.result) {
      out(`Result:\n${JSON.stringify(report.result, null, 2)}\n`);
      if (report.result.isError) exitCode = EXIT_USER_ERROR;
    }
  });

  withSourceOptions(
    program
      .command("generate")
      .description("write a standalone TypeScript MCP server project for the source")
      .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
      .requiredOption("--out <dir>", "the project's directory (created, or updated when generated before)")
      .option("--name <package-name>", "the npm package name (default: from the API's title)")
      .option("--force", "overwrite generated files you edited, or write into a directory openapi-mcp did not create"),
  ).action(async (source: string, flags: SourceFlags & { out: string; name?: string; force?: boolean }) => {
    const catalog = await load(source, loadOptions(flags));
    const errors = catalog.diagnostics.filter((d) => d.severity === "error");
    if (errors.length > 0) {
      out(renderReport(inspectCatalog(catalog), { tools: false }));
      throw new UserError({ code: "E_CATALOG", message: `${source}: not generating: ${errors.length} error${errors.length === 1 ? "" : "s"} in the source` });
    }
    const { generateProject } = await import("./generate/index.js");
    const { report } = generateProject({ catalog, out: flags.out, generator: `openapi-mcp ${version()}`, ...(flags.name ? { name: flags.name } : {}), ...(listingOverBudget(catalog) ? { largeListing: { threshold: TOKEN_BUDGET } } : {}), ...(flags.force ? { force: true } : {}), progress: (line) => process.stderr.write(`openapi-mcp: ${line}\n`) });
    const changed = [...report.created.map((p) => `  + ${p}`), ...report.updated.map((p) => `  ~ ${p}`), ...report.deleted.map((p) => `  - ${p}`)];
    out(`${flags.out}: ${report.created.length} created, ${report.updated.length} updated, ${report.deleted.length} deleted, ${report.unchanged.length} unchanged${report.kept.length > 0 ? `, ${report.kept.length} of yours kept (src/custom/)` : ""}\n`);
    if (changed.length > 0) out(`${changed.join("\n")}\n`);
    out(`Next: cd ${flags.out} && npm install && npm run build && npm test\n`);
  });

  program.addHelpText("after", examplesHelp(""));
  for (const command of program.commands) command.addHelpText("after", examplesHelp(command.name()));

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with code 0; a usage mistake has already been printed.
      return error.exitCode === 0 ? 0 : EXIT_USER_ERROR;
    }
    const debug = argv.includes("--debug");
    if (isUserError(error)) {
      err(`openapi-mcp: ${error.message}\n`);
      if (debug && error.stack) err(`${error.stack}\n`);
      return EXIT_USER_ERROR;
    }
    const stack = error instanceof Error ? error.stack : String(error);
    err(`openapi-mcp: internal error (a bug; please report it with this output):\n${stack}\n`);
    return EXIT_INTERNAL_ERROR;
  }
}

function invokedDirectly(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  const code = await main(process.argv);
  // Exit once stdout has drained: output to a pipe arrives in full, and idle keep-alive connections to an
  // upstream do not hold the process open.
  process.stdout.write("", () => process.exit(code));
}
