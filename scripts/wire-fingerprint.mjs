#!/usr/bin/env node
// The wire fingerprint of a refactor: run after `npm run build`, against dist/. Prints one SHA-256 per tools/list
// (every example and fixture spec and GitHub's, in tools, dynamic and code mode) and per tools/call (a fixed set
// against a real upstream on 127.0.0.1, in both protocol eras), as the SDK's real client gets them from the
// library's server, and per direct engine call (a dry run, begin and resume). A change that alters no behaviour
// prints the same lines: `diff` two runs' output. Usage: node scripts/wire-fingerprint.mjs [--only calls|listings] [--show]
// (--show prints what is hashed instead of the hash).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { callLines } from "./fingerprint/calls.mjs";
import { directLines } from "./fingerprint/direct.mjs";
import { listingLines, serveLines } from "./fingerprint/listings.mjs";
import { servedLines } from "./fingerprint/served.mjs";
import { startUpstream } from "./fingerprint/upstream.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
process.chdir(root);
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const lib = await import(join(root, "dist/index.js"));
// The server's parts, from the files that declare them (there is no barrel since issue 25's rooms).
const server = {
  ...(await import(join(root, "dist/server/http.js"))),
  ...(await import(join(root, "dist/server/mcp.js"))),
};
const up = await startUpstream();
const temp = mkdtempSync(join(tmpdir(), "wire-fingerprint-"));
try {
  const lines = [];
  if (only !== "listings") lines.push(...(await callLines({ lib, server, up, temp })));
  if (only !== "listings") lines.push(...(await directLines({ lib, up })));
  if (only !== "listings") lines.push(...(await servedLines({ lib, up, temp })));
  if (only !== "calls") lines.push(...(await listingLines({ root, lib, server })));
  if (only !== "calls") lines.push(...(await serveLines({ lib, temp })));
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  await up.close();
  rmSync(temp, { recursive: true, force: true });
}
// The code mode sandbox's worker stays up for the next script.
process.exit(0);
