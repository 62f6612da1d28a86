// In-flight bounds (issue 14, item 4): what one noisy client does to an upstream and to the other callers.
//   flood     one principal fires --flood concurrent tools/calls (engine calls, as the MCP binding makes them)
//             against a loopback upstream answering each in --delay ms: the peak of requests in progress and of
//             open connections the upstream saw, how many calls were sent, refused, and how long all took;
//   fairness  an upstream that serves --capacity requests at a time (the rest wait at it, FIFO), the engine's cap
//             per origin set to that capacity and a principal allowed all of it; one principal keeps --flood
//             calls outstanding (a refused one retries after a second, as told), another makes --samples calls one
//             at a time: its p50 alone, then during the flood.
// Run: npm run build && node bench/inflight.mjs   (the code before the bounds ignores the engine options given)
// Options: --flood N (2000)  --delay ms (1500)  --capacity N (8)  --fair-delay ms (20)  --samples N (15)

import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median, printMachine, recordSummary } from "./report.mjs";

const { values: options } = parseArgs({
  options: {
    flood: { type: "string", default: "2000" },
    delay: { type: "string", default: "1500" },
    capacity: { type: "string", default: "8" },
    "fair-delay": { type: "string", default: "20" },
    samples: { type: "string", default: "15" },
  },
});
const FLOOD = Number(options.flood);
const DELAY = Number(options.delay);
const CAPACITY = Number(options.capacity);
const FAIR_DELAY = Number(options["fair-delay"]);
const SAMPLES = Number(options.samples);

const root = new URL("..", import.meta.url).pathname;
const { loadCatalog } = await import(`${root}dist/load/index.js`);
const { Engine } = await import(`${root}dist/runtime/engine.js`);

/** An upstream answering `{ok:true}` after `delay` ms, at most `capacity` at a time; counts what it sees. */
async function upstream({ delay, capacity = Number.POSITIVE_INFINITY }) {
  const seen = { requests: 0, active: 0, peak: 0, sockets: 0, peakSockets: 0 };
  const waiting = [];
  let serving = 0;
  const serve = (res) => {
    serving++;
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      serving--;
      waiting.shift()?.();
    }, delay);
  };
  const server = createServer((req, res) => {
    seen.requests++;
    seen.active++;
    seen.peak = Math.max(seen.peak, seen.active);
    res.on("close", () => seen.active--);
    req.resume();
    req.on("end", () => (serving < capacity ? serve(res) : waiting.push(() => serve(res))));
  });
  server.on("connection", (socket) => {
    seen.sockets++;
    seen.peakSockets = Math.max(seen.peakSockets, seen.sockets);
    socket.on("close", () => seen.sockets--);
  });
  server.maxConnections = Number.POSITIVE_INFINITY;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    });
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close };
}

const spec = join(mkdtempSync(join(tmpdir(), "inflight-")), "api.json");
writeFileSync(
  spec,
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "slow", version: "1" },
    paths: { "/slow": { get: { operationId: "slow", responses: { 200: { description: "ok" } } } } },
  }),
);
const caller = (principal) => ({ caller: { principal, claims: {}, headers: {} } });

async function engineFor(url, extra = {}) {
  const catalog = await loadCatalog(spec, { baseUrl: url, allowInsecureHttp: true });
  return new Engine({ catalog, env: {}, timeoutMs: 600_000, retryDelaysMs: [], ...extra });
}

async function flood() {
  const api = await upstream({ delay: DELAY });
  const engine = await engineFor(api.url);
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: FLOOD }, () => engine.callTool("slow", {}, caller("noisy"))));
  const ms = performance.now() - started;
  const refused = results.filter((r) => r.isError);
  await api.close();
  return { ...api.seen, ok: results.length - refused.length, refused: refused.length, ms, sample: refused[0] };
}

async function fairness() {
  const api = await upstream({ delay: FAIR_DELAY, capacity: CAPACITY });
  const engine = await engineFor(api.url, { maxInFlight: CAPACITY, maxInFlightPerPrincipal: CAPACITY });
  const steady = async () => {
    const times = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      const result = await engine.callTool("slow", {}, caller("steady"));
      if (result.isError) throw new Error(result.content[0].text);
      times.push(performance.now() - t);
    }
    return median(times);
  };
  await steady();
  const quiet = await steady();
  let flooding = true;
  const worker = async () => {
    while (flooding) {
      const result = await engine.callTool("slow", {}, caller("noisy"));
      if (result.isError) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  const workers = Array.from({ length: FLOOD }, worker);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const flooded = await steady();
  flooding = false;
  await Promise.all(workers);
  await api.close();
  return { quiet, flooded };
}

printMachine();
const f = await flood();
console.log(
  `flood: ${FLOOD} concurrent calls from one principal, upstream answering in ${DELAY} ms: peak ${f.peak} requests in progress and ${f.peakSockets} connections at the upstream; ${f.requests} sent, ${f.ok} answered, ${f.refused} refused; all done in ${Math.round(f.ms)} ms`,
);
if (f.sample) console.log(`  a refusal: ${f.sample.content[0].text}`);
const q = await fairness();
console.log(
  `fairness: upstream serving ${CAPACITY} at a time in ${FAIR_DELAY} ms, ${FLOOD} calls kept outstanding by one principal: the other's p50 ${q.quiet.toFixed(1)} ms alone, ${q.flooded.toFixed(1)} ms during the flood (${(q.flooded / q.quiet).toFixed(2)}×)`,
);
recordSummary({
  bench: "inflight",
  measure: `peak upstream requests, ${FLOOD} concurrent calls`,
  value: String(f.peak),
});
recordSummary({
  bench: "inflight",
  measure: "other principal's p50 flooded / quiet",
  value: `${(q.flooded / q.quiet).toFixed(2)}×`,
  target: "≤ 2×",
  met: q.flooded / q.quiet <= 2,
});
