// What masking costs: a 1 MiB body with three secrets configured, masked as bytes (every body) and as text (bodies
// in charsets that are not ASCII-compatible), for ordinary JSON, JSON full of escapes, and hostile bodies made of
// nothing but escapes (the most layers to undo); and a small result masked as a value, as every call's result is.
// Medians of several rounds, in milliseconds per MiB (per result for the small one).
//
// Run: npm run build && node bench/mask.mjs   Options: --rounds N (15)

import { parseArgs } from "node:util";
import { median, printMachine } from "./report.mjs";

const { values: options } = parseArgs({ options: { rounds: { type: "string", default: "15" } } });
const ROUNDS = Number(options.rounds);
const root = new URL("..", import.meta.url).pathname;
const { Masker } = await import(`${root}dist/runtime/secrets/secrets.js`);

const SECRETS = ["sk_live_51HqLyjWDarjtT1zdp7dc", "canary-7f3a9d2b+SECRET/=x", "alice:pw-secret-77e1"];
const MiB = 1024 * 1024;
const fill = (unit) => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);
const items = (count, note) =>
  JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      id: i,
      name: `item ${i}`,
      url: `https://example.com/a/${i}?x=1&y=%20`,
      note,
    })),
  );
const BODIES = {
  JSON: items(12_000, "some text without escapes").slice(0, MiB),
  "JSON full of escapes": items(9_000, 'text with "quotes" and \\n, &amp; &lt;').slice(0, MiB),
  "nothing but %25": fill("%25"),
  "nothing but backslashes": fill("\\"),
  "nothing but &amp;#47;": fill("&amp;#47;"),
  "the secret, over and over": fill(`${SECRETS[0]} `),
};

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
const masker = new Masker(SECRETS);
const rows = [["body (1 MiB)", "as bytes", "as text"]];
for (const [name, text] of Object.entries(BODIES)) {
  const bytes = Buffer.from(text, "latin1");
  rows.push([
    name,
    `${time(() => masker.maskBytes(bytes)).toFixed(1)} ms`,
    `${time(() => masker.maskText(text)).toFixed(1)} ms`,
  ]);
}
const small = {
  id: 42,
  name: "widget",
  price: 9.5,
  tags: ["blue", "small"],
  url: "https://example.com/widgets/42?expand=true",
};
// Milliseconds for 10,000 results, so microseconds for one.
const perResultUs =
  time(() => {
    for (let i = 0; i < 10_000; i++) new Masker(SECRETS).maskValue(small);
  }) / 10;
rows.push(["a small result, as a value", `${perResultUs.toFixed(2)} µs`, ""]);
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
