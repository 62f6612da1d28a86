// The engine's own cost of one call, in process: engine.callTool on the wire fixture's getItem (policy, argument
// validation, request building, the send machinery, response mapping and output-schema validation, masking, the
// audit recorder) with a dispatcher that answers at once, so no socket or MCP cost hides it. CPU time per call
// (process.cpuUsage), median of rounds; with --baseline, another checkout's build alternates with this one in the
// same process, round by round, so machine load hits both alike.
//
// Run: npm run build && node bench/engine-call.mjs [--baseline ../other-checkout] [--rounds 6] [--calls 20000]

import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    baseline: { type: "string" },
    rounds: { type: "string", default: "6" },
    calls: { type: "string", default: "20000" },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const here = fileURLToPath(new URL("..", import.meta.url));
const roots = [here, ...(values.baseline ? [values.baseline] : [])];
const BODY = Buffer.from('{"id":7,"name":"seven"}');
/** An undici-shaped dispatcher answering every request with the same small JSON object. */
const dispatcher = {
  request: async () => ({
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: Readable.from([BODY]),
    trailers: {},
  }),
};

const subjects = [];
for (const root of roots) {
  const { Engine, loadCatalog } = await import(`${root}/dist/index.js`);
  const catalog = await loadCatalog(`${root}/test/fixtures/e2e/wire.openapi.yaml`, {
    baseUrl: "https://api.example/v1",
  });
  const engine = new Engine({ catalog, env: {}, dispatcher });
  const first = await engine.callTool("getItem", { id: 7 });
  if (first.isError) throw new Error(`${root}: ${JSON.stringify(first)}`);
  subjects.push({ root, engine, perCall: [] });
}
for (let round = 0; round < rounds; round++) {
  for (const subject of subjects) {
    for (let i = 0; i < calls / 20; i++) await subject.engine.callTool("getItem", { id: 7 });
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await subject.engine.callTool("getItem", { id: 7 });
    const used = process.cpuUsage(start);
    subject.perCall.push((used.user + used.system) / calls);
  }
}
for (const { root, perCall } of subjects) {
  const sorted = [...perCall].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const shown = perCall.map((us) => us.toFixed(1)).join(" ");
  console.log(`${root === here ? "this build" : root}: ${median.toFixed(1)} µs CPU per callTool (rounds: ${shown})`);
}
