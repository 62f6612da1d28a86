// TypeScript source text from a spec's strings: a doc comment `*/` cannot end early, and JSON literals safe in any
// JavaScript parser. Pure, so the generator (src/tools.ts) and code mode's `describe` (the runtime) share it.

/** A block comment (`/** … *\/`) holding any text: `*\/` cannot end it early, lines keep their indent. */
export function comment(text: string, indent = ""): string {
  const safe = text.replaceAll("*/", "*\\/").replace(/\r\n?|[\u2028\u2029]/g, "\n");
  const lines = safe.split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */`;
  return [`${indent}/**`, ...lines.map((line) => `${indent} *${line ? ` ${line}` : ""}`), `${indent} */`].join("\n");
}

/**
 * JSON text that is also a JavaScript and TypeScript literal: U+2028 and U+2029, valid raw in JSON, end a line for
 * pre-ES2019 parsers and for many editors and linters, so they are written as escapes.
 */
export function json(value: unknown, { indent }: { indent?: number } = {}): string {
  return JSON.stringify(value, null, indent).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** A TypeScript (and JavaScript, and JSON) string literal. */
export function tsString(text: string): string {
  return json(text);
}
