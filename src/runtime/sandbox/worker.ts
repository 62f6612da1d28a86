// A sandbox worker thread: compiles QuickJS's WebAssembly once, keeps a fresh instance ready for the next run, and
// runs one script at a time for the pool (pool.ts), relaying its api calls. Never imported: the pool starts it
// from the built file next to its own (dist/runtime/sandbox/worker.js, here and in generated projects).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import releaseSyncImport from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import type { FromWorker, ToWorker } from "./protocol.js";
import { Sandbox } from "./sandbox.js";

// The package's types describe its CommonJS build; under `import`, Node loads its ES build, whose default is the
// variant itself.
const releaseSync = releaseSyncImport as unknown as typeof releaseSyncImport.default;
const port = parentPort!;
// Over stdio the process's stdout is the MCP channel: whatever the engine prints goes to stderr. (Piping the
// worker's streams instead would keep an idle worker, and so the process, alive.)
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
const stop = new Int32Array((workerData as { stop: SharedArrayBuffer }).stop);
const wasm = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
// Node's global, which this project's type libraries (ES2023, Node 20) do not declare.
const { WebAssembly: wasmApi } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<never> };
};
const variant = newVariant(releaseSync, { wasmModule: await wasmApi.compile(readFileSync(wasm)) });
// A new instance per run (under a millisecond from the compiled module): no run shares a heap with another, and a
// run that broke its instance (the host stack overflowing inside it) leaves nothing behind.
let next: Promise<QuickJSWASMModule> = newQuickJSWASMModuleFromVariant(variant);
let current: { id: number; sandbox: Sandbox } | undefined;

function post(message: FromWorker): void {
  port.postMessage(message);
}

async function run(message: Extract<ToWorker, { type: "run" }>): Promise<void> {
  const { id } = message;
  const module = await next;
  const sandbox = new Sandbox({
    ...message,
    module,
    stop,
    send: (call) => post({ type: "call", id, ...call }),
  });
  current = { id, sandbox };
  const outcome = await sandbox.run();
  current = undefined;
  post({ type: "done", id, outcome, logs: sandbox.unsentLogs() });
  next = newQuickJSWASMModuleFromVariant(variant);
}

port.on("message", (message: ToWorker) => {
  if (message.type === "run") {
    void run(message);
    return;
  }
  if (current?.id !== message.id) return;
  if (message.type === "answer") current.sandbox.deliver(message);
  else current.sandbox.wake();
});

await next;
post({ type: "ready" });
