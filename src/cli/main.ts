// The command line: commands and options, turned into library calls and an exit code. The only place that
// decides how the process ends (src/cli.ts, the bin, runs it). Each command is declared in its own file.

import { Command, CommanderError, Option } from "commander";
import { isUserError } from "../catalog/errors.js";
import { addCall } from "./call.js";
import { examplesHelp } from "./examples.js";
import { addGenerate } from "./generate.js";
import { addInspect, addValidate } from "./inspect.js";
import type { Output } from "./output.js";
import { addServe } from "./serve.js";
import { version } from "./version.js";

// The MCP SDK, the HTTP client and the templates load only for the commands that use them (the SDK alone costs
// ~180 ms of start-up), so `inspect`, `validate` and `generate` start fast.

const EXIT_USER_ERROR = 1;
const EXIT_INTERNAL_ERROR = 70;

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
