// `inspect` and `validate`: what a source becomes, and whether its author has work to do.

import type { Command } from "commander";
import { plural } from "../catalog/plural.js";
import { renderReport } from "../inspect/render.js";
import { inspectCatalog } from "../inspect/report.js";
import type { Output } from "./output.js";
import { load, loadOptions, type SourceFlags, withSourceOptions } from "./source-options.js";

// A spec's author fixes errors by kind: validate shows more of each than inspect does.
const VALIDATE_PER_KIND = 10;

export function addInspect({ program, output }: { program: Command; output: Output }): void {
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
    const { credentialModes } = await import("../runtime/credentials/user-credential-modes.js");
    const report = inspectCatalog(catalog, { modes: credentialModes({ settings, catalog }) });
    output.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    if (report.errors.length > 0) output.fail();
  });
}

export function addValidate({ program, output }: { program: Command; output: Output }): void {
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
