// docs/reference/options.md is written by scripts/options-reference.mjs from the options table, each command's
// --help and the settings schema. Written again here, it must be the committed file byte for byte, so the reference
// cannot drift from the options a user is given; and every option a command's --help shows has its row there,
// naming that command. Reads the build (dist/), as the script does.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { optionsReference, REFERENCE } from "../../scripts/options-reference.mjs";
import { REPOSITORY } from "../support/generated.js";

const COMMANDS = ["serve", "call", "inspect", "validate", "generate"];

function helpFlags(command: string): string[] {
  const help = execFileSync(process.execPath, [join(REPOSITORY, "dist/cli.js"), command, "--help"], {
    encoding: "utf8",
  });
  const options = help.slice(help.indexOf("\nOptions:"), help.indexOf("\n\n", help.indexOf("\nOptions:") + 1));
  return [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!).filter((f) => f !== "--help");
}

/** Every command a row's cells name: the cells split at unescaped pipes, each cell's comma-separated items. */
function takers(line: string): string[] {
  return line.split(/(?<!\\)\|/).flatMap((cell) => cell.split(",").map((item) => item.trim()));
}

describe("the options reference (docs/reference/options.md)", () => {
  it("is what scripts/options-reference.mjs writes today (run it after changing an option)", () => {
    expect(readFileSync(REFERENCE, "utf8")).toBe(optionsReference());
  });

  it("has a row for every option each command's --help shows, naming that command", () => {
    const rows = readFileSync(REFERENCE, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("| `-"));
    for (const command of COMMANDS) {
      const flags = helpFlags(command);
      expect(flags.length).toBeGreaterThan(5);
      for (const flag of flags) {
        const named = rows.filter((line) => new RegExp(`^\\| \`${flag}[ \`]`).test(line));
        expect(
          named.some((line) => takers(line).includes(command)),
          `${command} ${flag}`,
        ).toBe(true);
      }
    }
  });
});
