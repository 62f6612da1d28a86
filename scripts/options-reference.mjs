// Writes docs/reference/options.md: every option of every command. The options table gives each of its options'
// flag, variables, settings key, kind, default and help; each command's `--help` says which commands take it and
// gives the options declared outside the table; the settings schema gives the settings keys that are no option.
// Run after changing an option:
//   npm run build --silent && node scripts/options-reference.mjs
// test/docs/options-reference.test.ts fails while the file differs from what this writes.

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { helpOptions } from "./options-help.mjs";
import { renderOptionsReference } from "./options-render.mjs";
// The options table: the one place this script and its test name it.
import { optionFlags, optionHelp, RUNTIME_OPTIONS } from "../dist/runtime/options.js";

const ROOT = new URL("..", import.meta.url);
export const REFERENCE = new URL("docs/reference/options.md", ROOT);
const COMMANDS = ["serve", "call", "inspect", "validate", "generate"];

/** The `--help` text of `openapi-mcp <command>` (the program's own with no command). */
function help(command) {
  const cli = fileURLToPath(new URL("dist/cli.js", ROOT));
  return execFileSync(process.execPath, [cli, ...(command ? [command] : []), "--help"], { encoding: "utf8" });
}

/** The reference as the table, the commands and the schema say it today. */
export function optionsReference() {
  const schema = JSON.parse(readFileSync(new URL("schemas/settings.schema.json", ROOT), "utf8"));
  return renderOptionsReference({
    table: RUNTIME_OPTIONS.map((option) => ({ ...option, flags: optionFlags(option), helpLine: optionHelp(option) })),
    commands: Object.fromEntries(COMMANDS.map((command) => [command, helpOptions(help(command))])),
    global: helpOptions(help()),
    settings: schema.properties,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REFERENCE, optionsReference());
  console.log(`wrote ${fileURLToPath(REFERENCE)}`);
}
