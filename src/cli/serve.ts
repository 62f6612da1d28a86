// `serve`: the table's options in, the composition root's serve() called, and the process kept until a signal or
// the stdio client goes away.

import { Command } from "commander";
import { UserError } from "../catalog/errors.js";
import { plural } from "../catalog/plural.js";
import type { RunningServer } from "../app/serve-options.js";
import { defined } from "../runtime/defined.js";
import type { OptionValues } from "../server/option-values.js";
import { addTableOptions, engineSettings, tableValues } from "./options.js";
import type { Output } from "./output.js";
import { loadOptions, type SourceFlags, withSourceOptions } from "./source-options.js";

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

export function addServe({ program, output }: { program: Command; output: Output }): void {
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
