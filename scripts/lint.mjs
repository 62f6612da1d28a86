// `npm run lint`: Biome's linter and formatter through its official JavaScript API and WebAssembly build. The
// native @biomejs/biome package pulls a binary per platform, and a registry without all of them breaks `npm ci`.
// `npm run format` (`--write`) rewrites the files the formatter would change; without it, each is an error.

import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { Biome } from "@biomejs/js-api/nodejs";

const write = process.argv.includes("--write");
const root = new URL("..", import.meta.url).pathname;
const configuration = JSON.parse(readFileSync(`${root}biome.json`, "utf8"));
const biome = new Biome();
const { projectKey } = biome.openProject(root);
biome.applyConfiguration(projectKey, configuration);

// The files git tracks or would track, minus what biome.json leaves out.
const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
});
const skipped = /^(test\/fixtures|examples|schemas|templates)\//;
const files = listed.split("\n").filter((file) => /\.(ts|mts|mjs|js)$/.test(file) && !skipped.test(file));

let errors = 0;
let warnings = 0;
let formatted = 0;
for (const file of files) {
  let content = readFileSync(`${root}${file}`, "utf8");
  const pretty = biome.formatContent(projectKey, content, { filePath: file }).content;
  if (pretty !== content) {
    if (write) {
      writeFileSync(`${root}${file}`, pretty);
      content = pretty;
      formatted++;
    } else {
      errors++;
      console.log(`${file}: error format: not formatted as biome.json says; \`npm run format\` rewrites it`);
    }
  }
  const { diagnostics } = biome.lintContent(projectKey, content, { filePath: file });
  for (const diagnostic of diagnostics) {
    // Only lint findings; assists (import sorting and the like) are for editors.
    if (diagnostic.severity !== "error" && diagnostic.severity !== "fatal" && diagnostic.severity !== "warning")
      continue;
    if (diagnostic.severity === "warning") warnings++;
    else errors++;
    console.log(
      `${file}:${place(content, diagnostic.location?.span?.[0])} ${diagnostic.severity} ${diagnostic.category}: ${diagnostic.description}`,
    );
  }
}
console.log(
  `lint: ${files.length} files${write ? `, ${formatted} formatted` : ""}, ${errors} errors, ${warnings} warnings`,
);
process.exitCode = errors > 0 ? 1 : 0;

/** `line:column` of a byte offset (Biome's spans count UTF-8 bytes). */
function place(content, byteOffset) {
  if (byteOffset === undefined) return "1:1";
  const before = Buffer.from(content, "utf8").subarray(0, byteOffset).toString("utf8");
  const lines = before.split("\n");
  return `${lines.length}:${lines.at(-1).length + 1}`;
}
