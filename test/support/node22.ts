// Node 22 for the tools that need it (the MCP conformance suite): the official binary as the npm registry ships it
// (`node-<platform>-<arch>`, the package the `node` package installs), fetched once into node_modules/.cache.
// The project itself stays on Node 20.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPOSITORY } from "./generated.js";

const VERSION = "22.23.3";
const CACHE = join(REPOSITORY, "node_modules/.cache/node22");

/** The path of a Node 22 executable, installed from the npm registry on first use. */
export function node22(): string {
  const name = `node-${process.platform}-${process.arch}`;
  const binary = join(CACHE, "node_modules", name, "bin", process.platform === "win32" ? "node.exe" : "node");
  if (!existsSync(binary)) {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    execFileSync(
      npm,
      ["install", "--prefix", CACHE, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", `${name}@${VERSION}`],
      { stdio: "pipe" },
    );
  }
  const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  if (!version.startsWith("v22.")) throw new Error(`${binary} is ${version}, not Node 22`);
  return binary;
}
