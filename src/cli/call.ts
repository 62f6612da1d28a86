// `call`: one tool called from the terminal, the request shown with its secrets masked.

import type { Command } from "commander";
import { UserError } from "../catalog/errors.js";
import { addTableOptions, engineSettings, tableValues } from "./options.js";
import type { Output } from "./output.js";
import { loadOptions, type SourceFlags, withSourceOptions } from "./source-options.js";

export function addCall({ program, output }: { program: Command; output: Output }): void {
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
