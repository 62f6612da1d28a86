// The command line: commands and options, turned into library calls and an exit code. The only place that
// decides how the process ends (src/cli.ts, the bin, runs it).

import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { isUserError, UserError } from "../catalog/errors.js";
import { plural } from "../catalog/plural.js";
import { examplesHelp } from "./examples.js";
import { listingOverBudget, TOKEN_BUDGET } from "../inspect/budget.js";
import { inspectCatalog } from "../inspect/report.js";
import { renderReport } from "../inspect/render.js";
import type { Catalog } from "../catalog/types.js";
import { type CacheOptions, loadCatalogCached } from "../load/cache.js";
import type { LoadOptions } from "../load/index.js";
import { runtimeOption } from "../runtime/options.js";
import { defined } from "../runtime/defined.js";
import type { OptionValues } from "../server/option-values.js";
import type { RunningServer } from "../app/serve.js";
import type { EngineSetupOptions } from "../app/setup.js";
import { addTableOptions, collect, commanderOption, tableValues } from "./options.js";

// The MCP SDK, the HTTP client and the templates load only for the commands that use them (the SDK alone costs
// ~180 ms of start-up), so `inspect`, `validate` and `generate` start fast.

interface SourceFlags {
  baseUrl?: string;
  include?: string[];
  exclude?: string[];
  allowRef: string[];
  allowInsecureHttp?: boolean;
  auth: string[];
  serverVar: Array<[string, string]>;
  /** false with --no-cache. */
  cache: boolean;
}

const EXIT_USER_ERROR = 1;
// A spec's author fixes errors by kind: validate shows more of each than inspect does.
const VALIDATE_PER_KIND = 10;
const EXIT_INTERNAL_ERROR = 70;

/** Where a command writes, and how it says the run failed without throwing (inspect's report with errors). */
interface Output {
  out(text: string): void;
  err(text: string): void;
  fail(): void;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const output: Output = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    fail: () => {
      exitCode = EXIT_USER_ERROR;
    },
  };
  const program = createProgram(output);
  addInspect({ program, output });
  addValidate({ program, output });
  addServe({ program, output });
  addCall({ program, output });
  addGenerate({ program, output });
  addExamples(program);
  const code = await run({ program, argv, output });
  return code === 0 ? exitCode : code;
}

function createProgram({ out, err }: Output): Command {
  return (
    new Command("openapi-mcp")
      .description("Turn OpenAPI documents and custom action definitions into MCP servers.")
      .version(version())
      .addOption(new Option("--debug", "show stack traces for errors"))
      .exitOverride()
      .showSuggestionAfterError()
      // A usage mistake (a missing argument or option) ends with where to look.
      .showHelpAfterError("(see --help for the options and examples)")
      .configureOutput({
        writeOut: out,
        writeErr: err,
        outputError: (text, write) => write(`openapi-mcp: ${text.replace(/^error: /, "")}`),
      })
  );
}

/** The options of every command that loads a source; the table's among them are declared from it. */
function withSourceOptions(command: Command): Command {
  const table = (name: string) => commanderOption(runtimeOption(name));
  return command
    .addOption(table("base-url"))
    .addOption(table("include"))
    .addOption(table("exclude"))
    .option(
      "--allow-ref <dir|url-prefix>",
      "let external $refs also read this directory or URL prefix (repeatable)",
      collect,
      [],
    )
    .addOption(table("allow-insecure-http"))
    .option(
      "--auth <[source-id=]kind:…>",
      "credentials every tool of a source sends, replacing what its document declares: bearer:VAR, header:NAME:VAR, query:NAME:VAR, basic:USERVAR:PASSVAR (VAR: an environment variable's name, or file:PATH, cmd:NAME; repeatable)",
      collect,
      [],
    )
    .option(
      "--server-var <name=value>",
      "set a server variable of the document's servers (repeatable)",
      serverVariable,
      [],
    )
    .addOption(table("no-cache"));
}

function serverVariable(value: string, previous: Array<[string, string]>): Array<[string, string]> {
  const equals = value.indexOf("=");
  if (equals <= 0) throw new InvalidArgumentError("expected name=value, e.g. --server-var region=eu");
  return [...previous, [value.slice(0, equals), value.slice(equals + 1)]];
}

function loadOptions(flags: SourceFlags): LoadOptions & CacheOptions {
  return {
    ...(flags.cache === false ? { cache: false } : {}),
    // With --debug every reason an entry is not used or kept; without, once, that the cache cannot be written.
    ...(process.argv.includes("--debug")
      ? { cacheLog: (line: string) => process.stderr.write(`openapi-mcp: ${line}\n`) }
      : { cacheWarn: (line: string) => process.stderr.write(`openapi-mcp: warning: ${line} (--no-cache skips it)\n`) }),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    include: flags.include ?? [],
    exclude: flags.exclude ?? [],
    allowRefs: flags.allowRef,
    ...(flags.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    ...(flags.auth.length > 0 ? { upstreamAuth: flags.auth } : {}),
    ...(flags.serverVar.length > 0 ? { serverVariables: Object.fromEntries(flags.serverVar) } : {}),
    progress: (line) => process.stderr.write(`openapi-mcp: ${line}\n`),
  };
}

/** The engine's settings as given (the settings file and the engine supply the rest), and the settings file. */
function engineSettings(values: OptionValues): EngineSetupOptions {
  return defined({
    config: values.config,
    timeoutMs: values.timeoutMs,
    maxResponseBytes: values.maxResponseBytes,
    outputValidation: values.outputValidation,
    responseText: values.responseText,
    markResponseText: values.markResponseText,
    state: values.state,
    stateFallback: values.stateFallback,
    stateFail: values.stateFail,
    auditLog: values.auditLog,
    requireCredentials: values.requireCredentials,
    allowReadableSecretFiles: values.allowReadableSecretFiles,
    policies: values.policies,
    stateSecrets: values.stateSecrets,
  });
}

function addInspect({ program, output }: { program: Command; output: Output }): void {
  withSourceOptions(
    program
      .command("inspect")
      .description("list the tools a source becomes: their routes, classes, sizes, credentials and warnings")
      .argument(
        "<source...>",
        "OpenAPI documents, action definitions or one manifest, as `serve` takes them: files or https:// URLs",
      )
      .option("--json", "print the report as JSON")
      .option("--config <file>", "a settings file: its auth entries, and each scheme's per-user credential mode"),
  ).action(async (sources: string[], flags: SourceFlags & { json?: boolean; config?: string }) => {
    const settings = flags.config ? await (await import("../load/settings.js")).readSettings(flags.config) : undefined;
    const settingsAuth = settings?.auth ? { settingsAuth: { file: settings.file, auth: settings.auth } } : {};
    const catalog = await load(sources, { ...loadOptions(flags), ...settingsAuth });
    const { credentialModes } = await import("../runtime/user-credential-modes.js");
    const report = inspectCatalog(catalog, { modes: credentialModes({ settings, catalog }) });
    output.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    if (report.errors.length > 0) output.fail();
  });
}

function addValidate({ program, output }: { program: Command; output: Output }): void {
  withSourceOptions(
    program
      .command("validate")
      .description(
        "check a source as its author would: schema violations are errors, each with its line; exits 1 on errors",
      )
      .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
      .option("--strict", "also exit 1 on warnings (for CI)"),
  ).action(async (source: string, flags: SourceFlags & { strict?: boolean }) => {
    const report = inspectCatalog(await load(source, { ...loadOptions(flags), checkConformance: true }));
    output.out(renderReport(report, { tools: false, perKind: VALIDATE_PER_KIND }));
    const { errors, warnings } = report;
    const count = (n: number, what: string): string => `${n} ${what}${plural(n)}`;
    if (errors.length > 0 || (flags.strict && warnings.length > 0)) {
      output.fail();
      const counted =
        errors.length > 0 ? count(errors.length, "error") : `${count(warnings.length, "warning")} (--strict)`;
      output.err(
        `openapi-mcp: ${source}: ${counted}${errors.length > 0 && flags.strict && warnings.length > 0 ? `, ${count(warnings.length, "warning")}` : ""}\n`,
      );
    } else {
      output.out(`${source}: valid${warnings.length > 0 ? `, with ${count(warnings.length, "warning")}` : ""}\n`);
    }
  });
}

/** `serve` and its options: every option of the table, as a generated server takes them, with the same words. */
function declareServe(program: Command): Command {
  const command = program
    .command("serve")
    .description("serve the source(s) as an MCP server (stdio by default)")
    .argument("[source...]", "OpenAPI documents, action definitions or one manifest: files or https:// URLs");
  return withSourceOptions(addTableOptions({ command, which: (option) => !option.source }));
}

/** The table's options as `serve` reads them from `args`: its own declarations and reader, without serving. */
export function readServeOptions(args: string[]): OptionValues {
  const program = new Command().exitOverride();
  const command = declareServe(program)
    .exitOverride()
    .action(() => {});
  program.parse(["serve", "source", ...args], { from: "user" });
  return tableValues(command);
}

function addServe({ program, output }: { program: Command; output: Output }): void {
  const command = declareServe(program);
  command.action(async (sources: string[], flags: SourceFlags) => {
    const values = tableValues(command);
    const { registry, watch } = command.opts<{ registry?: string; watch?: boolean }>();
    if (sources.length === 0 && registry === undefined)
      throw new UserError({
        code: "E_OPTION",
        message: "serve needs a source (a file or https:// URL) or --registry <dir>",
      });
    const { serve } = await import("../app/serve.js");
    const running = await serve(sources, {
      ...(registry !== undefined ? { registry } : {}),
      ...(watch ? { watch: true } : {}),
      ...loadOptions(flags),
      ...engineSettings(values),
      ...defined({
        transport: values.transport,
        port: values.port,
        host: values.host,
        mode: values.mode,
        auth: values.auth,
        console: values.console,
        consoleTokenEnv: values.consoleTokenEnv,
      }),
      stateless: values.stateless === true,
      ...(values.allowUnauthenticated ? { allowUnauthenticated: true } : {}),
      sessions: values.sessions,
      requests: values.requests,
      script: values.script,
      optionNames: { port: "PORT or --port", host: "--host" },
    });
    await serveUntilStopped({ running, stateless: values.stateless === true, output });
  });
}

async function serveUntilStopped({
  running,
  stateless,
  output,
}: {
  running: RunningServer;
  stateless: boolean;
  output: Output;
}): Promise<void> {
  const count = running.catalog.tools.length;
  const through = {
    tools: "",
    dynamic: " through search_tools, describe_tool and call_tool",
    code: " through search_tools, describe_tools and execute",
  }[running.mode];
  const tools = `${count} tool${plural(count)}${through}`;
  if (running.url) {
    output.err(
      `openapi-mcp: serving ${tools} at ${running.url} (streamable HTTP${stateless ? ", stateless" : ""}); Ctrl-C stops\n`,
    );
  } else {
    output.err(`openapi-mcp: serving ${tools} over stdio\n`);
  }
  await new Promise<void>((resolve, reject) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
    running.closed?.then(resolve, reject);
  });
  await running.close();
}

function addCall({ program, output }: { program: Command; output: Output }): void {
  const command = program
    .command("call")
    .description("call one tool: shows the request (secrets masked), then the result as an agent receives it")
    .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
    .argument("<tool>", "the tool's name, as `inspect` lists it")
    .option("--args <json>", "the arguments, a JSON object", "{}")
    .option("--dry-run", "show the request without sending it");
  withSourceOptions(addTableOptions({ command, which: (option) => option.call === true })).action(
    async (source: string, tool: string, flags: SourceFlags & { args: string; dryRun?: boolean }) => {
      const settings = engineSettings(tableValues(command));
      let args: unknown;
      try {
        args = JSON.parse(flags.args);
      } catch (error) {
        throw new UserError({ code: "E_OPTION", message: `--args is not valid JSON: ${(error as Error).message}` });
      }
      const { callTool } = await import("../app/call.js");
      const report = await callTool(source, {
        ...loadOptions(flags),
        ...settings,
        tool,
        args,
        dryRun: flags.dryRun === true,
      });
      if (report.request) output.out(`${flags.dryRun ? "Would send" : "Request"}:\n${report.request}\n\n`);
      if (report.result) {
        output.out(`Result:\n${JSON.stringify(report.result, null, 2)}\n`);
        if (report.result.isError) output.fail();
      }
    },
  );
}

function addGenerate({ program, output }: { program: Command; output: Output }): void {
  withSourceOptions(
    program
      .command("generate")
      .description("write a standalone TypeScript MCP server project for the source")
      .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
      .requiredOption("--out <dir>", "the project's directory (created, or updated when generated before)")
      .option("--name <package-name>", "the npm package name (default: from the API's title)")
      .option("--force", "overwrite generated files you edited, or write into a directory openapi-mcp did not create"),
  ).action(async (source: string, flags: SourceFlags & { out: string; name?: string; force?: boolean }) => {
    const { out } = output;
    const catalog = await load(source, loadOptions(flags));
    const errors = catalog.diagnostics.filter((d) => d.severity === "error");
    if (errors.length > 0) {
      out(renderReport(inspectCatalog(catalog), { tools: false }));
      throw new UserError({
        code: "E_CATALOG",
        message: `${source}: not generating: ${errors.length} error${plural(errors.length)} in the source`,
      });
    }
    const { generateProject } = await import("../generate/index.js");
    const { report } = generateProject({
      catalog,
      out: flags.out,
      generator: `openapi-mcp ${version()}`,
      ...(flags.name ? { name: flags.name } : {}),
      ...(listingOverBudget(catalog) ? { largeListing: { threshold: TOKEN_BUDGET } } : {}),
      ...(flags.force ? { force: true } : {}),
      progress: (line) => process.stderr.write(`openapi-mcp: ${line}\n`),
    });
    const changed = [
      ...report.created.map((p) => `  + ${p}`),
      ...report.updated.map((p) => `  ~ ${p}`),
      ...report.deleted.map((p) => `  - ${p}`),
    ];
    out(
      `${flags.out}: ${report.created.length} created, ${report.updated.length} updated, ${report.deleted.length} deleted, ${report.unchanged.length} unchanged${report.kept.length > 0 ? `, ${report.kept.length} of yours kept (src/custom/)` : ""}\n`,
    );
    if (changed.length > 0) out(`${changed.join("\n")}\n`);
    out(`Next: cd ${flags.out} && npm install && npm run build && npm test\n`);
  });
}

function addExamples(program: Command): void {
  program.addHelpText("after", examplesHelp(""));
  for (const command of program.commands) command.addHelpText("after", examplesHelp(command.name()));
}

/** Parses and runs; the exit code for how it ended. */
async function run({ program, argv, output }: { program: Command; argv: string[]; output: Output }): Promise<number> {
  const { err } = output;
  try {
    await program.parseAsync(argv);
    return 0;
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

/** The catalog, from the cache when it holds it, kept there when not. */
async function load(sources: string | string[], options: LoadOptions & CacheOptions): Promise<Catalog> {
  const loaded = await loadCatalogCached(sources, options);
  await loaded.keep();
  return loaded.catalog;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
