// Where serveHttp listens, as the user's problem when it cannot: a taken port is a UserError saying how to pick
// another, and an address beyond loopback without endpoint auth is refused unless the operator opts out (warned).

import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isUserError } from "../../src/catalog/errors.js";
import type { HttpOptions } from "../../src/server/http.js";
import { serveFake } from "./http-support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.unstubAllEnvs();
});

function serve(options: Partial<HttpOptions> = {}) {
  return serveFake({ cleanups, options });
}

async function takenPort(): Promise<number> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as { port: number }).port;
}

describe("a port that cannot be used", () => {
  it("is a user error naming the port and how to set another", async () => {
    const port = await takenPort();
    const error = await serve({ port, optionNames: { port: "PORT or --port", host: "--host" } }).catch(
      (e: unknown) => e,
    );
    expect(isUserError(error)).toBe(true);
    expect((error as Error).message).toBe(`port ${port} is in use; set PORT or --port`);
  });

  it("names an address this machine does not have", async () => {
    // 192.0.2.0/24 is TEST-NET-1: never assigned to a real interface.
    const error = await serve({ host: "192.0.2.1", allowUnauthenticated: true }).catch((e: unknown) => e);
    expect(isUserError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^cannot listen on 192\.0\.2\.1: this machine has no such address; set --host/,
    );
  });
});

describe("an address beyond loopback", () => {
  it.each(["0.0.0.0", "::"])("%s without endpoint auth is refused, naming the ways out", async (host) => {
    const error = await serve({ host }).catch((e: unknown) => e);
    expect(isUserError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(new RegExp(`^not serving on ${host.replace(/\./g, "\\.")} without endpoint auth`));
    for (const option of ["--auth-token-env", "--auth-resource", "--allow-unauthenticated"])
      expect(message).toContain(option);
  });

  it("is served with --allow-unauthenticated, with a warning on every start", async () => {
    for (const _ of [1, 2]) {
      const { handle, logs } = await serve({ host: "0.0.0.0", allowUnauthenticated: true });
      expect((await fetch(`http://127.0.0.1:${handle.port}/healthz`)).status).toBe(200);
      expect(logs).toEqual([
        expect.stringMatching(/^WARNING --allow-unauthenticated: serving on 0\.0\.0\.0 without endpoint auth/),
      ]);
    }
  });

  it("is served quietly with endpoint auth; loopback needs neither", async () => {
    vi.stubEnv("MCP_TEST_TOKENS", "a-token-long-enough-to-pass");
    expect((await serve({ host: "0.0.0.0", auth: { type: "static", tokenEnv: "MCP_TEST_TOKENS" } })).logs).toEqual([]);
    expect((await serve({ host: "127.0.0.1" })).logs).toEqual([]);
    expect((await serve({ host: "localhost" })).logs).toEqual([]);
  });
});
