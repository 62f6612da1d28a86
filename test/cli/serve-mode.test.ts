// `serve --mode dynamic` (and `mode` in the settings file) as a user runs it: the built binary over stdio, spoken to
// in JSON-RPC, against a real upstream on 127.0.0.1.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../support/cli.js";
import { SECRETS, WIRE_FIXTURE } from "../support/e2e.js";
import { type StdioPeer, startPeer } from "../support/stdio-peer.js";
import { json, Upstream } from "../support/upstream.js";

let upstream: Upstream;
const peers: StdioPeer[] = [];
beforeAll(async () => {
  upstream = await Upstream.start();
});
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
  await upstream.close();
});

async function serve(options: string[]): Promise<StdioPeer> {
  const peer = await startPeer({
    command: process.execPath,
    args: [CLI, "serve", WIRE_FIXTURE, "--base-url", `${upstream.url}/v1`, ...options],
    env: { ...SECRETS },
  });
  peers.push(peer);
  return peer;
}

const toolNames = async (peer: StdioPeer) =>
  (JSON.parse(await peer.request("tools/list")).result.tools as Array<{ name: string }>).map((t) => t.name);

describe("serve --mode", () => {
  it("dynamic: three tools; search, then a call that reaches the upstream", async () => {
    const peer = await serve(["--mode", "dynamic"]);
    expect(await toolNames(peer)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    const searched = JSON.parse(
      await peer.request("tools/call", { name: "search_tools", arguments: { query: "fetch one item" } }),
    );
    expect(searched.result.content[0].text).toMatch(/^getItem: /m);
    upstream.on("GET", "/v1/items/3", json({ id: 3, name: "three" }));
    const called = JSON.parse(
      await peer.request("tools/call", { name: "call_tool", arguments: { name: "getItem", arguments: { id: 3 } } }),
    );
    expect(called.result.structuredContent).toEqual({ id: 3, name: "three" });
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v1/items/3"]);
    expect(peer.stderr()).toContain("through search_tools, describe_tool and call_tool");
  });

  it("the settings file's mode applies, and the command line wins over it", async () => {
    const config = join(mkdtempSync(join(tmpdir(), "mode-")), "settings.json");
    writeFileSync(config, JSON.stringify({ mode: "dynamic" }));
    expect(await toolNames(await serve(["--config", config]))).toEqual(["search_tools", "describe_tool", "call_tool"]);
    expect((await toolNames(await serve(["--config", config, "--mode", "tools"]))).length).toBeGreaterThan(20);
  });

  it("tools is the default; an unknown mode is refused with the choices", async () => {
    expect(await toolNames(await serve([]))).toContain("getItem");
    const { code, stderr } = await runCli(["serve", WIRE_FIXTURE, "--mode", "lazy"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/--mode must be one of tools, dynamic, code, not 'lazy'/);
  });
});
