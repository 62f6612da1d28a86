// Strings from a spec land in generated files of several kinds; each has its own way out of its context, so each
// gets its own escape. Nothing from a spec is ever evaluated: it is data, written where data goes.

/**
 * Text in Markdown, inline: line breaks become spaces; characters that start markup anywhere (emphasis, code,
 * links, HTML, entities, table cells) are escaped, and those that start a block only where the text begins
 * (headings, lists, quotes), so `1.0.0` and `X-API-Key` stay readable in the source.
 */
export function markdown(text: string): string {
  return text
    .replace(/\r\n?|\n|[\u2028\u2029]/g, " ")
    .replace(/[\\`*_[\]|<>~&!]/g, (c) => `\\${c}`)
    .replace(
      /^(\s*)([#+\-=>]|\d+[.)])/,
      (_, space: string, marker: string) => `${space}${marker.replace(/[#+\-=>.)]$/, (c) => `\\${c}`)}`,
    );
}

/** An npm package name: lower case, URL-safe, at most 214 characters. */
export function packageName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[-._]+|[-._]+$/g, "")
    .slice(0, 200);
  return name || "mcp-server";
}

/** A Markdown code span holding any text. */
export function codeSpan(text: string): string {
  const body = text.replace(/\r\n?|\n|[\u2028\u2029]/g, " ");
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const padded = body.startsWith("`") || body.endsWith("`") ? ` ${body} ` : body;
  return `${fence}${padded}${fence}`;
}

/**
 * A code span in a table cell: GFM splits a row at every `|` not written `\\|`, even inside code, and takes the
 * backslash away again; elsewhere the backslash would show, so only cells get it.
 */
export function cellCodeSpan(text: string): string {
  return codeSpan(text.replaceAll("|", "\\|"));
}
