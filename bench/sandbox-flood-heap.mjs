// The heap phase of bench/sandbox-flood.mjs: the engine and code mode in this process, over
// SLOW_API with no upstream call made; one caller sends `count` maximum-size executes at once, each its own string
// as a request's body would make it. Once the refusals have come (no answer for a second), a forced collection,
// then the heap used compared with before: what the server holds for the accepted ones. All are then cancelled.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// A forced collection without --expose-gc on the command line (a worker thread refuses that flag).
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");
const gc = () => {
  collect();
  collect();
};

const SLOW_API = {
  openapi: "3.0.3",
  info: { title: "slow", version: "1" },
  paths: { "/slow": { get: { operationId: "slow", responses: { 200: { description: "ok" } } } } },
};

export async function heldHeap({ dist, count, code }) {
  const { loadCatalog } = await import(`${dist}/load/index.js`);
  const { Engine } = await import(`${dist}/runtime/engine.js`);
  const { CodeProvider } = await import(`${dist}/runtime/code-mode.js`);
  const catalog = await loadCatalog({ document: SLOW_API }, { baseUrl: "http://127.0.0.1:9" });
  const provider = new CodeProvider({ engine: new Engine({ catalog, env: {} }), catalog });
  const stop = new AbortController();
  const context = { caller: { principal: "static:a", claims: {}, headers: {} }, signal: stop.signal };
  await provider.callTool("execute", { code: "return 1;" }, context);
  const body = Buffer.from(code);
  gc();
  const before = process.memoryUsage().heapUsed;
  let refused = 0;
  let answered = 0;
  const calls = [];
  for (let i = 0; i < count; i++)
    calls.push(
      provider.callTool("execute", { code: body.toString("latin1") }, context).then((result) => {
        answered++;
        if (result.content[0]?.text.includes("not run")) refused++;
      }),
    );
  let last = -1;
  while (answered !== last) {
    last = answered;
    await new Promise((done) => setTimeout(done, 1_000));
  }
  gc();
  const held = process.memoryUsage().heapUsed - before;
  stop.abort();
  await Promise.all(calls);
  return { refused, accepted: count - refused, heldBytes: held };
}
