// An MCP server run as a child process and spoken to over stdio in raw JSON-RPC lines, so a test can compare two
// servers' answers byte for byte (the SDK's Client would parse and reshape them first). In either protocol era: a
// 2025 peer opens with initialize; a 2026-07-28 one sends nothing first and puts the era's envelope (protocol
// version, client info and capabilities) in every request's `_meta`, as that revision has clients do.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { testCacheHome } from "./cache-env.js";

/** The `_meta` envelope of a 2026-07-28 request; a request's own `_meta` keys are added (or replace these). */
const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "parity-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export type Era = "2025-06-18" | "2026-07-28";

export interface StdioPeer {
  /** The initialize answer as written (2025 era); undefined in the 2026-07-28 era, which has no opening. */
  readonly opening: string | undefined;
  /** Sends a request and resolves with the response line exactly as the server wrote it. */
  request(method: string, params?: Record<string, unknown>): Promise<string>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

const RESPONSE_TIMEOUT_MS = 20_000;

export async function startPeer({
  command,
  args,
  env,
  cwd,
  era = "2025-06-18",
}: {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  era?: Era;
}): Promise<StdioPeer> {
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    env: { PATH: process.env.PATH ?? "", ...testCacheHome(), ...env },
    stdio: "pipe",
    ...(cwd ? { cwd } : {}),
  });
  let errors = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    errors += chunk;
  });
  const waiting = new Map<number, (line: string) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as { id?: unknown; method?: unknown };
    // A request from the server (elicitation, say) carries an id too, but a method: only responses settle a wait.
    if (typeof message.id === "number" && message.method === undefined) waiting.get(message.id)?.(line);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let nextId = 1;
  const write = (message: Record<string, unknown>): void => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  const modern = era === "2026-07-28";
  const enveloped = (params: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
    modern ? { ...params, _meta: { ...MODERN_ENVELOPE, ...(params?._meta as object | undefined) } } : params;
  let opening: string | undefined;
  const peer: StdioPeer = {
    get opening() {
      return opening;
    },
    request(method, params) {
      params = enveloped(params);
      const id = nextId++;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${method}: no answer in ${RESPONSE_TIMEOUT_MS} ms; stderr:\n${errors}`)),
          RESPONSE_TIMEOUT_MS,
        );
        waiting.set(id, (line) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(line);
        });
        void exited.then(() => reject(new Error(`${method}: the server exited; stderr:\n${errors}`)));
        write({ id, method, ...(params ? { params } : {}) });
      });
    },
    notify(method, params) {
      write({ method, ...(params ? { params } : {}) });
    },
    stderr: () => errors,
    async close() {
      child.stdin.end();
      child.kill("SIGTERM");
      await exited;
    },
  };
  if (modern) return peer;
  const initialized = await peer.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "parity-test", version: "1.0.0" },
  });
  if (!initialized.includes('"result"')) throw new Error(`initialize failed: ${initialized}\n${errors}`);
  peer.notify("notifications/initialized");
  opening = initialized;
  return peer;
}
