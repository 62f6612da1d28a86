// The HTTP server's log is bounded whatever clients send (issue 11): a response to an unknown JSON-RPC id was
// logged whole (up to 4 MiB a line), and every refused request wrote a line (500 forged tokens, 500 lines).

import { afterEach, describe, expect, it, vi } from "vitest";
import { boundedLog } from "../../src/server/log-lines.js";
import type { HttpOptions } from "../../src/server/http.js";
import { INITIALIZE, mcpHeaders, raw, serveFake } from "./http-support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

function serve(options: Partial<HttpOptions> = {}) {
  return serveFake({ cleanups, options });
}

describe("the HTTP server's log", () => {
  it("cuts a 1 MB response to an unknown request id to one bounded line saying how much was left out", async () => {
    const { handle, logs } = await serve();
    const opened = await raw({ port: handle.port, headers: mcpHeaders(handle.port), body: INITIALIZE });
    const session = {
      "mcp-session-id": opened.headers["mcp-session-id"] as string,
      "mcp-protocol-version": "2025-06-18",
    };
    const stray = JSON.stringify({ jsonrpc: "2.0", id: "never-asked", result: { blob: "x".repeat(1_000_000) } });
    expect((await raw({ port: handle.port, headers: mcpHeaders(handle.port, session), body: stray })).status).toBe(202);
    await vi.waitFor(() => expect(logs.some((l) => l.includes("unknown message ID"))).toBe(true));
    const line = logs.find((l) => l.includes("unknown message ID"))!;
    expect(line.length).toBeLessThan(4_100);
    expect(line).toMatch(/ … \(\d{6,} more characters not logged\)$/);
    expect(Math.max(...logs.map((l) => l.length))).toBeLessThan(4_100);
  });

  it("logs the first 10 of 500 forged tokens' refusals, then one summary line with the count", async () => {
    vi.stubEnv("MCP_TEST_TOKENS", "the-real-token-0123456789");
    const { handle, logs } = await serve({ auth: { type: "static", tokenEnv: "MCP_TEST_TOKENS" } });
    for (let batch = 0; batch < 50; batch++) {
      const forged = Array.from({ length: 10 }, (_, i) =>
        raw({
          port: handle.port,
          headers: mcpHeaders(handle.port, { authorization: `Bearer forged-${batch}-${i}` }),
          body: INITIALIZE,
        }),
      );
      for (const answer of await Promise.all(forged)) expect(answer.status).toBe(401);
    }
    const refusals = () => logs.filter((l) => l.startsWith("refused:"));
    expect(refusals()).toHaveLength(10);
    expect(refusals().every((l) => l.startsWith("refused: 401"))).toBe(true);
    // The window is still open: its count is said at the latest when the server stops.
    await handle.close();
    expect(refusals()).toHaveLength(11);
    expect(refusals()[10]).toMatch(
      /^refused: … 490 more refused in the last \d+ s \(401 × 490\), not logged one by one$/,
    );
  });

  it("logs what the SDK refuses of a client's requests as refusals: 30 malformed bodies, 10 lines and a count", async () => {
    const { handle, logs } = await serve();
    const port = handle.port;
    const opened = await raw({ port, headers: mcpHeaders(port), body: INITIALIZE });
    const session = {
      "mcp-session-id": opened.headers["mcp-session-id"] as string,
      "mcp-protocol-version": "2025-06-18",
    };
    for (let i = 0; i < 15; i++) {
      // Not a JSON-RPC message, and a response to a request never made: the SDK reports each through onerror.
      const junk = await raw({ port, headers: mcpHeaders(port), body: JSON.stringify({ junk: i }) });
      expect(junk.status).toBe(400);
      const stray = JSON.stringify({ jsonrpc: "2.0", id: `never-asked-${i}`, result: {} });
      expect((await raw({ port, headers: mcpHeaders(port, session), body: stray })).status).toBe(202);
    }
    const sdkLines = () => logs.filter((l) => /not a valid JSON-RPC message|unknown message ID/.test(l));
    await vi.waitFor(() => expect(sdkLines()).toHaveLength(10));
    expect(sdkLines().every((l) => l.startsWith("refused: mcp: "))).toBe(true);
    await handle.close();
    expect(logs.at(-1)).toMatch(/^refused: … 20 more refused in the last \d+ s \(other × 20\), not logged one by one$/);
  });
});

describe("boundedLog", () => {
  it("logs refusals again after a window, once its summary is written; other lines are never held back", () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const log = boundedLog((l) => lines.push(l), { refusalsLogged: 2, windowMs: 10_000 });
    for (const status of [401, 401, 401, 403, 503]) log(`refused: ${status} no`);
    log("refused: Invalid Host header");
    log("mcp: something else");
    expect(lines).toEqual(["refused: 401 no", "refused: 401 no", "mcp: something else"]);
    vi.advanceTimersByTime(10_000);
    expect(lines[3]).toBe(
      "refused: … 4 more refused in the last 10 s (401 × 1, 403 × 1, 503 × 1, other × 1), not logged one by one",
    );
    log("refused: 401 again");
    expect(lines[4]).toBe("refused: 401 again");
    vi.advanceTimersByTime(10_000);
    // Nothing was held back in that window: no summary.
    expect(lines).toHaveLength(5);
  });

  it("cuts long lines at the limit, never between the halves of a character", () => {
    const lines: string[] = [];
    const log = boundedLog((l) => lines.push(l), { maxLineChars: 10 });
    log("123456789😀tail");
    log("short");
    expect(lines).toEqual(["123456789 … (6 more characters not logged)", "short"]);
  });
});
