// Slow requests bounded (issue 11: an authenticated client held 4 MiB per connection for 300 s; 100 slow connections
// added 420 MB). Real sockets on loopback that trickle headers or a body: past the time to receive them Node's
// server answers 408 and closes the connection; bytes of bodies still arriving past the budget, per principal and
// overall, get 503 with Retry-After and the connection closed, while other callers are served.

import { afterEach, describe, expect, it, vi } from "vitest";
import type { HttpOptions } from "../../src/server/http.js";
import { INITIALIZE, mcpHeaders, raw, serveFake } from "./http-support.js";
import { paddedInitialize, peer as connectPeer, postHead, trickle } from "./slow-peer.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.unstubAllEnvs();
});

async function peer(port: number) {
  const connected = await connectPeer(port);
  cleanups.push(() => connected.socket.destroy());
  return connected;
}

function serve(options: Partial<HttpOptions> = {}) {
  return serveFake({ cleanups, options });
}

describe("time to receive a request", () => {
  it("a body still arriving after the request timeout: 408 and the connection closed; others are served meanwhile", async () => {
    const { handle, logs } = await serve({ requests: { requestTimeoutMs: 600 } });
    const slow = await peer(handle.port);
    slow.socket.write(postHead({ port: handle.port, size: 20_000 }));
    trickle({ socket: slow.socket, data: paddedInitialize(20_000) });
    expect((await raw({ port: handle.port, headers: mcpHeaders(handle.port), body: INITIALIZE })).status).toBe(200);
    await slow.closed();
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(logs.filter((l) => l.startsWith("refused: 408"))).toEqual([
      expect.stringContaining("all of it within 600 ms"),
    ]);
    expect(logs.filter((l) => l.startsWith("http:"))).toEqual([]);
  });

  it("headers still arriving after the headers timeout: 408 and the connection closed", async () => {
    const { handle } = await serve({ requests: { headersTimeoutMs: 300 } });
    const slow = await peer(handle.port);
    slow.socket.write("POST /mcp HTTP/1.1\r\n");
    trickle({ socket: slow.socket, data: "x-filler: 0123456789\r\n".repeat(100) });
    await slow.closed();
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe("bytes held by bodies still arriving", () => {
  /**
   * Two connections of one caller each send 60 KB of an 80 KB body, past a 100 KB budget together: exactly one
   * is refused (whichever's bytes pass it), the other completes. Returns the survivor, still to finish its body.
   */
  async function twoSlowBodies({ port, token }: { port: number; token?: string }) {
    const size = 80_000;
    const body = paddedInitialize(size);
    const peers = [await peer(port), await peer(port)];
    for (const p of peers)
      p.socket.write(
        Buffer.concat([Buffer.from(postHead({ port, size, ...(token ? { token } : {}) })), body.subarray(0, 60_000)]),
      );
    const status = await Promise.any(peers.map(async (p, index) => ({ index, line: await p.answered() })));
    const refused = peers[status.index]!;
    expect(status.line).toBe("HTTP/1.1 503 Service Unavailable");
    expect(refused.received()).toMatch(/\r\nretry-after: 30\r\n/i);
    expect(refused.received()).toContain("Server busy: too many request bodies arriving");
    await refused.closed();
    const survivor = peers[1 - status.index]!;
    expect(survivor.received()).toBe("");
    return { survivor, finish: () => survivor.socket.write(body.subarray(60_000)) };
  }

  it("past a caller's budget: 503 with Retry-After and the connection closed; another caller is served", async () => {
    const [alice, bob] = ["alice-token-0123456789", "bob-token-0123456789ab"];
    vi.stubEnv("MCP_TEST_TOKENS", `${alice},${bob}`);
    const { handle, logs } = await serve({
      auth: { type: "static", tokenEnv: "MCP_TEST_TOKENS" },
      requests: { maxPendingBodyBytesPerPrincipal: 100_000 },
    });
    const { survivor, finish } = await twoSlowBodies({ port: handle.port, token: alice });
    // Bob's 80 KB fit beside alice's 60 KB still arriving: the budget that refused her is hers alone.
    const headers = mcpHeaders(handle.port, { authorization: `Bearer ${bob}` });
    expect((await raw({ port: handle.port, headers, body: paddedInitialize(80_000) })).status).toBe(200);
    finish();
    expect(await survivor.answered()).toBe("HTTP/1.1 200 OK");
    expect(logs.filter((l) => l.startsWith("refused: 503"))).toEqual([
      expect.stringContaining("100000 bytes of request bodies arriving for one caller"),
    ]);
  });

  it("past the overall budget: 503 with Retry-After and the connection closed; the body arriving completes", async () => {
    const { handle, logs } = await serve({ requests: { maxPendingBodyBytes: 100_000 } });
    const { survivor, finish } = await twoSlowBodies({ port: handle.port });
    finish();
    expect(await survivor.answered()).toBe("HTTP/1.1 200 OK");
    // Nothing is held once the bodies are complete or refused: a body as large as the budget fits.
    expect(
      (await raw({ port: handle.port, headers: mcpHeaders(handle.port), body: paddedInitialize(100_000) })).status,
    ).toBe(200);
    expect(logs.filter((l) => l.startsWith("refused: 503"))).toEqual([
      expect.stringContaining("100000 bytes of request bodies arriving, all callers together"),
    ]);
  });
});
