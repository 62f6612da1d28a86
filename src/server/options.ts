// The options of a generated server: the table's in runtime/options.ts (those of `openapi-mcp serve` that make
// sense for a server with its tools built in: all but `serveOnly` ones), each also settable in the environment for containers.
// `--help` is rendered from the table, so it says what `openapi-mcp serve --help` says.

import { optionFlags, optionHelp, RUNTIME_OPTIONS, type RuntimeOption } from "../runtime/options.js";

export type ServerOption = RuntimeOption;

export const SERVER_OPTIONS: readonly ServerOption[] = RUNTIME_OPTIONS.filter((option) => !option.serveOnly);

/** `node dist/index.js --help`: every option with its variable. */
export function serverUsage({ name, command = "node dist/index.js" }: { name: string; command?: string }): string {
  const rows = [
    ...SERVER_OPTIONS.map((option) => ({
      left: optionFlags(option),
      right: `${optionHelp(option)}${option.env ? ` [${option.env}]` : ""}`,
    })),
    { left: "-h, --help", right: "show this help" },
  ];
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
