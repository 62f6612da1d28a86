// This package's version, as `--version` says it and a generated project records it.

import { readFileSync } from "node:fs";

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
