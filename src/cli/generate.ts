// `generate`: a standalone TypeScript project for the source, refused while the source has errors.

import type { Command } from "commander";
import { UserError } from "../catalog/errors.js";
import { plural } from "../catalog/plural.js";
import { listingOverBudget, TOKEN_BUDGET } from "../inspect/budget.js";
import { renderReport } from "../inspect/render.js";
import { inspectCatalog } from "../inspect/report.js";
import type { Output } from "./output.js";
import { load, loadOptions, type SourceFlags, withSourceOptions } from "./source-options.js";
import { version } from "./version.js";

export function addGenerate({ program, output }: { program: Command; output: Output }): void {
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
