// The loader hooks of module-recorder.mjs: they run on the loader's own thread.

import { appendFileSync } from "node:fs";

let file;
export function initialize(data) {
  file = data.file;
}

export async function load(url, context, next) {
  appendFileSync(file, `${url}\n`);
  return next(url, context);
}
