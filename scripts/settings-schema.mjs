// Writes the settings keys of the options table (src/runtime/options.ts) into schemas/settings.schema.json, keeping
// the rest of the file (credentials, auth, rate limits). Run after changing the table:
//   npm run build --silent && node scripts/settings-schema.mjs
// test/runtime/option-schema.test.ts fails while the file and the table disagree.

import { readFileSync, writeFileSync } from "node:fs";
import { settingsSchemaProperties } from "../dist/runtime/option-schema.js";

const file = new URL("../schemas/settings.schema.json", import.meta.url);
const schema = JSON.parse(readFileSync(file, "utf8"));
Object.assign(schema.properties, settingsSchemaProperties());
writeFileSync(file, `${format(schema, "")}\n`);

/** JSON with short objects and arrays on one line, as the file has always been written. */
function format(value, indent) {
  const inline = JSON.stringify(value, null, 1).replace(/\n\s*/g, " ").replace(/\[ /g, "[").replace(/ \]/g, "]");
  if (typeof value !== "object" || value === null || indent.length + inline.length <= 120) return inline;
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((item) => `${inner}${format(item, inner)}`)
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${format(item, inner)}`);
  return Array.isArray(value) ? `[\n${entries.join(",\n")}\n${indent}]` : `{\n${entries.join(",\n")}\n${indent}}`;
}
