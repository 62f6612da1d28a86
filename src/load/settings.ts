// Reading the settings file (`--config`): a file or URL, JSON or YAML, checked against schemas/settings.schema.json
// with every problem at its line and column. Generated servers carry this reader too. Applying the settings is the
// runtime's (runtime/settings.ts): credential values never enter the catalog, which holds no secrets.

import type { Settings } from "../catalog/settings.js";
import { parseBytes } from "./parse.js";
import { readSource } from "./read-source.js";
import { refuse, schemaProblems } from "./schema-check.js";

export async function readSettings(path: string): Promise<Settings> {
  const read = await readSource(path);
  const { value, text } = parseBytes({ bytes: read.bytes, file: read.display });
  refuse({
    problems: schemaProblems({ schemaName: "settings", parsed: { value, text: text() }, file: read.display }),
    file: read.display,
    what: "settings file",
  });
  return { ...(value as Omit<Settings, "file">), file: read.display };
}
