// Preloaded with `node --import` by tests that check what a process loads: appends every ES module's URL to the
// file named by LOADED_MODULES as it loads, and every CommonJS module's path when the process exits.

import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const file = process.env.LOADED_MODULES;
if (file) {
  register(new URL("./module-recorder-hooks.mjs", import.meta.url), { data: { file } });
  process.on("exit", () => appendFileSync(file, `${Object.keys(createRequire(import.meta.url).cache).join("\n")}\n`));
}
