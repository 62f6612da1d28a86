// The human-readable form of an inspect report: a table of tools, the totals, credentials and diagnostics.

import { formatPlace } from "../catalog/errors.js";
import { plural } from "../catalog/plural.js";
import type { Diagnostic } from "../catalog/types.js";
import type { Budget } from "./budget.js";
import type { InspectReport } from "./report.js";

const SAME_KIND_SHOWN = 3;

/** `perKind`: how many diagnostics of one kind are shown before "… and N more like these". */
export function renderReport(
  report: InspectReport,
  { tools = true, perKind = SAME_KIND_SHOWN }: { tools?: boolean; perKind?: number } = {},
): string {
  const lines: string[] = [];
  for (const source of report.sources) {
    const id = source.id ? `[${source.id}] ` : "";
    lines.push(
      printable(
        `${id}${source.title}${source.version ? ` ${source.version}` : ""} (${source.format}, ${source.location})`,
      ),
    );
  }
  if (tools && report.tools.length > 0) {
    lines.push("");
    const rows = report.tools.map((t) => [
      t.name,
      t.method,
      printable(t.path),
      t.approval ? `${t.effect}, approval` : t.effect,
      number(t.tokens),
    ]);
    lines.push(...table(["TOOL", "METHOD", "PATH", "CLASS", "TOKENS"], rows, [4]));
  }
  lines.push("");
  lines.push(
    `${number(report.totals.tools)} tool${plural(report.totals.tools)} · tools/list ${number(report.totals.bytes)} bytes ≈ ${number(report.totals.tokens)} tokens`,
  );
  lines.push(...budget(report.budget, report.totals.tools));
  if (report.credentials.length > 0) {
    lines.push("", "Credentials:");
    for (const c of report.credentials) {
      const from = c.obtained
        ? ` · per user: ${c.obtained}`
        : c.variables.length > 0
          ? ` ← ${c.variables.map((v) => `$${v}`).join(", ")}`
          : "";
      lines.push(printable(`  ${c.id}: ${c.detail}${from} (${c.usedBy} tool${plural(c.usedBy)})`));
    }
  }
  lines.push(...diagnostics("Errors", report.errors, perKind), ...diagnostics("Warnings", report.warnings, perKind));
  return `${lines.join("\n")}\n`;
}

/** The costliest tools and tags (when the table is too long to see them at a glance), and the advice. */
function budget(b: Budget, tools: number): string[] {
  const lines: string[] = [];
  if (tools > b.largestTools.length || b.over) {
    lines.push(`Largest tools: ${b.largestTools.map((t) => `${t.name} ≈ ${number(t.tokens)}`).join(" · ")}`);
    if (b.largestTags.length > 1)
      lines.push(
        `Largest tags: ${b.largestTags.map((t) => `${t.tag} ≈ ${number(t.tokens)} (${number(t.tools)})`).join(" · ")}`,
      );
  }
  if (b.advice) lines.push(`Context budget: ${b.advice}.`);
  return lines;
}

/** Diagnostics grouped by code; a code seen many times shows a few examples and a count. */
export function diagnostics(heading: string, list: Diagnostic[], perKind = SAME_KIND_SHOWN): string[] {
  if (list.length === 0) return [];
  const lines = ["", `${heading} (${list.length}):`];
  const byCode = new Map<string, Diagnostic[]>();
  for (const d of list) {
    const group = byCode.get(d.code);
    if (group) group.push(d);
    else byCode.set(d.code, [d]);
  }
  for (const [code, group] of byCode) {
    for (const d of group.slice(0, group.length > perKind + 1 ? perKind : group.length))
      lines.push(`  ${diagnosticLine(d)}`);
    if (group.length > perKind + 1) lines.push(`  … and ${group.length - perKind} more like these (${code})`);
  }
  return lines;
}

/** `[tool] message (file#/pointer)`; `file:line:column #/pointer: [tool] message` when the place in the text is known. */
export function diagnosticLine(d: Diagnostic): string {
  const tool = d.tool ? `[${d.tool}] ` : "";
  if (d.file !== undefined && d.line !== undefined)
    return printable(`${d.file}:${d.line}:${d.column ?? 1} #${d.pointer ?? ""}: ${tool}${d.message}`);
  const place = formatPlace({
    ...(d.file !== undefined ? { file: d.file } : {}),
    ...(d.pointer !== undefined ? { pointer: d.pointer } : {}),
  });
  return printable(`${tool}${d.message}${place ? ` (${place})` : ""}`);
}

/**
 * Text from a spec, made safe for a terminal: line breaks and control characters (an escape sequence could
 * rewrite the screen) are shown as escapes, so one item stays one line and says what it really contains.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

function number(n: number): string {
  return n.toLocaleString("en-US");
}

function table(header: string[], rows: string[][], rightAligned: number[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    `  ${cells
      .map((c, i) => (rightAligned.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd()}`;
  return [line(header), ...rows.map(line)];
}
