// `serve --transport http` takes the bounds on slow requests from its options and its settings file: a body still
// arriving after the request timeout (settings: requestTimeoutSeconds) gets 408, and bodies arriving past the bytes
// budget (--max-pending-body-bytes) get 503, each with the connection closed.

import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import { spawnCli, tempDir, waitFor, writeFile } from "../support/guard.js";
import { paddedInitialize, peer, type Peer, postHead, trickle } from "../server/slow-peer.js";

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

async function open(port: number): Promise<Peer> {
  const connected = await peer(port);
  cleanups.push(() => connected.socket.destroy());
  return connected;
}

it("serve: --max-pending-body-bytes and the settings file's requestTimeoutSeconds bound slow requests", {
  timeout: 20_000,
}, async () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const config = writeFile(dir, "settings.json", { requestTimeoutSeconds: 1 });
  const args = [
    "serve",
    join(ROOT, "examples/petstore.openapi.yaml"),
    "--transport",
    "http",
    "--port",
    "0",
    "--config",
    config,
    "--max-pending-body-bytes",
    "100000",
  ];
  const served = spawnCli(args, { API_KEY_API_KEY: "slow-key-0123456789" });
  cleanups.push(() => served.child.kill("SIGKILL"));
  await waitFor(() => /127\.0\.0\.1:\d+\/mcp/.test(served.stderr()) || served.child.exitCode !== null);
  const port = Number(/127\.0\.0\.1:(\d+)\/mcp/.exec(served.stderr())?.[1] ?? Number.NaN);
  expect(port, served.stderr()).toBeGreaterThan(0);

  const slow = await open(port);
  slow.socket.write(postHead({ port, size: 20_000 }));
  trickle({ socket: slow.socket, data: paddedInitialize(20_000) });
  await slow.closed(4_000);
  expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);

  const peers = [await open(port), await open(port)];
  for (const p of peers)
    p.socket.write(
      Buffer.concat([Buffer.from(postHead({ port, size: 80_000 })), paddedInitialize(80_000).subarray(0, 60_000)]),
    );
  expect(await Promise.any(peers.map((p) => p.answered()))).toBe("HTTP/1.1 503 Service Unavailable");
  expect(served.stderr()).toMatch(/refused: 408 .*all of it within 1 s/);
  expect(served.stderr()).toMatch(/refused: 503 a request body past 100000 bytes/);
});
