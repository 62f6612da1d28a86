// What removing hidden characters costs a call (--response-text): a 1 MiB upstream body mapped into a tool result
// (mapResponse: decode, parse, write out, check nothing hides) with `keep` (what every call did before) and `strip`
// (the default), for ordinary JSON, JSON in many scripts with emoji ZWJ sequences (joiners to judge, nothing to
// remove), JSON whose every string hides a tag character (the slow path: every string rewritten), and plain text.
// Medians of several rounds, in milliseconds per MiB.
//
// Run: npm run build && node bench/response-text.mjs   Options: --rounds N (15)

import { parseArgs } from "node:util";
import { median, printMachine } from "./report.mjs";

const { values: options } = parseArgs({ options: { rounds: { type: "string", default: "15" } } });
const ROUNDS = Number(options.rounds);
const root = new URL("..", import.meta.url).pathname;
const { mapResponse } = await import(`${root}dist/runtime/http/response.js`);
const { ResponseText } = await import(`${root}dist/runtime/http/response-text.js`);
const { Validator } = await import(`${root}dist/runtime/checks/validate.js`);

const MiB = 1024 * 1024;
const TAG = String.fromCodePoint(0xe0041);
/** A JSON array of objects about 1 MiB long. */
const items = (note) => {
  const list = [];
  let length = 2;
  for (let i = 0; length < MiB; i++) {
    const item = { id: i, name: `item ${i}`, url: `https://example.com/a/${i}?x=1`, note };
    length += JSON.stringify(item).length + 1;
    list.push(item);
  }
  return JSON.stringify(list);
};
const BODIES = {
  JSON: ["application/json", items("some text without anything hidden")],
  "JSON, many scripts": ["application/json", items("日本語 مرحبا می‌خواهم 👨‍👩‍👧 🏳️‍🌈 e\u0301")],
  "JSON, a tag in every note": ["application/json", items(`some text${TAG}`)],
  "plain text": ["text/plain; charset=utf-8", "some plain text, line after line\n".repeat(MiB / 33)],
};

const tool = {
  name: "t",
  title: "t",
  description: "",
  inputSchema: { type: "object" },
  annotations: {},
  effect: "read",
  operation: {},
  source: "",
  origin: { file: "", pointer: "", tags: [] },
};
const validator = new Validator({ definitions: {} });

function time(run) {
  const samples = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

printMachine();
const rows = [["body (1 MiB)", "keep", "strip", "removed"]];
for (const [name, [contentType, text]] of Object.entries(BODIES)) {
  const response = {
    status: 200,
    statusText: "OK",
    url: "https://example.com/a",
    headers: { "content-type": contentType },
    body: Buffer.from(text),
    truncated: false,
  };
  const map = (mode) => {
    const guard = new ResponseText({ mode, mark: false });
    const result = mapResponse({
      response,
      tool,
      validator,
      outputValidation: "off",
      method: "GET",
      maxBytes: 4 * MiB,
      text: guard,
    });
    if (result.isError) throw new Error(result.content[0].text);
    return guard.removed;
  };
  rows.push([
    name,
    `${time(() => map("keep")).toFixed(1)} ms`,
    `${time(() => map("strip")).toFixed(1)} ms`,
    String(map("strip")),
  ]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
for (const [i, row] of rows.entries()) {
  console.log(
    row
      .map((cell, j) => cell.padEnd(widths[j]))
      .join("  ")
      .trimEnd(),
  );
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
