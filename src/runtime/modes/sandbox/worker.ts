// A sandbox worker thread: compiles QuickJS's WebAssembly once, keeps a fresh instance ready for the next run, and
// runs one script at a time for the pool (pool.ts), relaying its api calls. Never imported: the pool starts it
// from the built file next to its own (dist/runtime/modes/sandbox/worker.js, here and in generated projects).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import releaseSyncImport from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import { Control, type FromWorker, type ToWorker } from "./protocol.js";
import { DEFAULT_SCRIPT_LIMITS } from "./script.js";
import { Sandbox, type SandboxOptions } from "./sandbox.js";

// The package's types describe its CommonJS build; under `import`, Node loads its ES build, whose default is the
// variant itself.
const releaseSync = releaseSyncImport as unknown as typeof releaseSyncImport.default;
const port = parentPort!;
// Over stdio the process's stdout is the MCP channel: whatever the engine prints goes to stderr. (Piping the
// worker's streams instead would keep an idle worker, and so the process, alive.)
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
const control = new Control((workerData as { control: SharedArrayBuffer }).control);
const wasm = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
// Node's global, which this project's type libraries (ES2023, Node 20) do not declare.
const { WebAssembly: wasmApi } = globalThis as unknown as {
  WebAssembly: {
    compile(bytes: Uint8Array): Promise<never>;
    Memory: new (pages: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  };
};
const wasmModule = await wasmApi.compile(readFileSync(wasm));
/** The engine's own memory, 16 MiB (its static data and stack), in 64 KiB pages; the heap grows beyond it. */
const BASE_PAGES = 256;
const MAX_PAGES = 32_768;

/**
 * A new instance per run (under a millisecond from the compiled module): no run shares a heap with another, and a
 * run that broke its instance (the host stack overflowing inside it) leaves nothing behind. Its memory can grow by
 * memoryBytes and no further: QuickJS's own limit does not count every allocation (arrays grown element by
 * element pass it), the WebAssembly memory's maximum does.
 */
function instance(memoryBytes: number): Instance {
  const maximum = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(memoryBytes / 65_536));
  const wasmMemory = new wasmApi.Memory({ initial: BASE_PAGES, maximum });
  return {
    memoryBytes,
    memory: { bytes: () => wasmMemory.buffer.byteLength, maximumBytes: maximum * 65_536 },
    module: newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmModule, wasmMemory })),
  };
}

interface Instance {
  memoryBytes: number;
  memory: SandboxOptions["memory"];
  module: Promise<QuickJSWASMModule>;
}

/** Made while idle, for the next run with the default memory limit. */
let next = instance(DEFAULT_SCRIPT_LIMITS.memoryBytes);
let current: { id: number; sandbox: Sandbox } | undefined;

function post(message: FromWorker): void {
  port.postMessage(message);
}

async function run(message: Extract<ToWorker, { type: "run" }>): Promise<void> {
  const { id } = message;
  const { memoryBytes } = message.limits;
  const { module: loading, memory } = next.memoryBytes === memoryBytes ? next : instance(memoryBytes);
  const module = await loading;
  const sandbox = new Sandbox({
    ...message,
    module,
    control,
    memory,
    send: (call) => post({ type: "call", id, ...call }),
  });
  current = { id, sandbox };
  const outcome = await sandbox.run();
  current = undefined;
  post({ type: "done", id, outcome, logs: sandbox.unsentLogs() });
  if (next.memoryBytes === memoryBytes) next = instance(DEFAULT_SCRIPT_LIMITS.memoryBytes);
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

await next.module;
post({ type: "ready" });
