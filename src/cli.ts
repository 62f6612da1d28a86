#!/usr/bin/env node
// The command line: commands and options, turned into library calls and an exit code. The only place that
// decides how the process ends.

import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, Option } from "commander";
import { isUserError } from "./catalog/errors.js";
import { inspectCatalog } from "./inspect/report.js";
import { renderReport } from "./inspect/render.js";
import type { LoadOptions } from "./load/index.js";
import { loadCatalog } from "./load/index.js";

interface SourceFlags {
  baseUrl?: string;
  include: string[];
  exclude: string[];
  allowRef: string[];
  allowInsecureHttp?: boolean;
}

const EXIT_USER_ERROR = 1;
const EXIT_INTERNAL_ERROR = 70;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function withSourceOptions(command: Command): Command {
  return command
    .option("--base-url <url>", "use this upstream base URL instead of the document's servers")
    .option("--include <filter>", "keep only matching operations: tag:NAME, op:OPERATION_ID, path:GLOB, method:VERB (repeatable)", collect, [])
    .option("--exclude <filter>", "leave out matching operations (repeatable, same forms as --include)", collect, [])
    .option("--allow-ref <dir|url-prefix>", "let external $refs also read this directory or URL prefix (repeatable)", collect, [])
    .option("--allow-insecure-http", "permit http:// to hosts other than loopback");
}

function loadOptions(flags: SourceFlags): LoadOptions {
  return {
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    include: flags.include,
    exclude: flags.exclude,
    allowRefs: flags.allowRef,
    ...(flags.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  };
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
    .configureOutput({ writeOut: out, writeErr: err, outputError: (text, write) => write(`openapi-mcp: ${text.replace(/^error: /, "")}`) });

  withSourceOptions(
    program
      .command("inspect")
      .description("list the tools a source becomes: their routes, classes, sizes and warnings")
      .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL")
      .option("--json", "print the report as JSON"),
  ).action(async (source: string, flags: SourceFlags & { json?: boolean }) => {
    const report = inspectCatalog(await loadCatalog(source, loadOptions(flags)));
    out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    if (report.errors.length > 0) exitCode = EXIT_USER_ERROR;
  });

  withSourceOptions(
    program
      .command("validate")
      .description("report what would stop or degrade the server; exits non-zero on errors")
      .argument("<source>", "OpenAPI document, action definition or manifest: a file or an https:// URL"),
  ).action(async (source: string, flags: SourceFlags) => {
    const report = inspectCatalog(await loadCatalog(source, { ...loadOptions(flags), checkConformance: true }));
    out(renderReport(report, { tools: false }));
    if (report.errors.length > 0) {
      exitCode = EXIT_USER_ERROR;
      err(`openapi-mcp: ${source}: ${report.errors.length} error${report.errors.length === 1 ? "" : "s"}\n`);
    } else {
      out(`${source}: valid${report.warnings.length > 0 ? `, with ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}` : ""}\n`);
    }
  });

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
  // Setting exitCode (rather than exiting) lets pending output reach a pipe in full.
  process.exitCode = await main(process.argv);
}
