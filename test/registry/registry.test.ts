// `serve --registry <dir>` end to end: a real SDK client over HTTP (a 2025 session) is told tools/list_changed
// when a source is added, changed or removed, and calls the new tool; a source that fails validation is not
// published, its previous version keeps serving and its error is reported with its place; publish() checks
// before it writes.

import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import type { Upstream } from "../support/upstream.js";
import { actions, httpClient, registryDir, resultJson, save, versionUpstream } from "./support.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<{ dir: string; upstream: Upstream; running: RunningServer; logs: string[] }> {
  const { dir, remove } = registryDir();
  cleanups.push(remove);
  const upstream = await versionUpstream();
  cleanups.push(() => upstream.close());
  save({
    dir,
    file: "pets.actions.yaml",
    text: actions({ name: "pets", baseUrl: upstream.url, version: 1, tools: ["list"] }),
  });
  const logs: string[] = [];
  const running = await serve([], { registry: dir, transport: "http", port: 0, log: (line) => logs.push(line) });
  cleanups.push(() => running.close());
  return { dir, upstream, running, logs };
}

describe("serve --registry", () => {
  it("tells a connected client the tools changed when a source is added, and the client calls the new tool", async () => {
    const { dir, upstream, running } = await start();
    const { client, changed } = await httpClient(running.url!);
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["pets__list"]);
    const told = changed();
    save({
      dir,
      file: "cars.actions.yaml",
      text: actions({ name: "cars", baseUrl: upstream.url, version: 1, tools: ["drive"] }),
    });
    await told;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["cars__drive", "pets__list"]);
    expect(resultJson(await client.callTool({ name: "cars__drive", arguments: {} }))).toEqual({
      version: 1,
      tool: "drive",
    });
    expect(running.registry!.status()).toMatchObject({
      version: 2,
      tools: 2,
      sources: [
        { name: "cars.actions.yaml", state: "published", version: 1 },
        { name: "pets.actions.yaml", state: "published", version: 1 },
      ],
    });
  });

  it("refuses a registry directory that is not there, naming it", async () => {
    await expect(
      serve([], { registry: "/nonexistent/registry", transport: "http", port: 0, log: () => {} }),
    ).rejects.toThrow(/^--registry \/nonexistent\/registry: no such directory$/);
  });

  it("declares tools.listChanged", async () => {
    const { running } = await start();
    const { client } = await httpClient(running.url!);
    cleanups.push(() => client.close());
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
  });

  it("does not publish a source that fails validation: the previous version keeps serving, the error has its place", async () => {
    const { dir, upstream, running, logs } = await start();
    const { client } = await httpClient(running.url!);
    cleanups.push(() => client.close());
    // A method that does not exist, on line 6 of the file.
    const broken = actions({ name: "pets", baseUrl: upstream.url, version: 2, tools: ["list", "adopt"] }).replace(
      "method: GET",
      "method: FETCH",
    );
    save({ dir, file: "pets.actions.yaml", text: broken });
    await running.registry!.refresh();
    const [pets] = running.registry!.status().sources;
    expect(pets).toMatchObject({ name: "pets.actions.yaml", state: "rejected", version: 1 });
    expect(pets!.errors).toEqual([
      {
        file: join(dir, "pets.actions.yaml"),
        line: 6,
        column: 13,
        pointer: "/actions/0/method",
        message: expect.stringMatching(/^must be one of: "GET"/),
      },
    ]);
    expect(logs.join("\n")).toMatch(/pets\.actions\.yaml not published \(its previous version keeps serving\)/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["pets__list"]);
    expect(resultJson(await client.callTool({ name: "pets__list", arguments: {} }))).toEqual({
      version: 1,
      tool: "list",
    });
  });

  it("takes a removed source's tools away, and tells the client", async () => {
    const { dir, upstream, running } = await start();
    save({
      dir,
      file: "cars.actions.yaml",
      text: actions({ name: "cars", baseUrl: upstream.url, version: 1, tools: ["drive"] }),
    });
    await running.registry!.refresh();
    const { client, changed } = await httpClient(running.url!);
    cleanups.push(() => client.close());
    const told = changed();
    rmSync(join(dir, "cars.actions.yaml"));
    await told;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["pets__list"]);
    await expect(client.callTool({ name: "cars__drive", arguments: {} })).rejects.toThrow(/Unknown tool: cars__drive/);
  });

  it("publish() refuses a definition with errors without writing it, and writes and serves a good one", async () => {
    const { dir, upstream, running } = await start();
    const refused = await running.registry!.publish({ name: "bad.actions.yaml", text: "name: bad\nactions: [" });
    expect(refused).toMatchObject({ published: false, name: "bad.actions.yaml" });
    expect(refused.published ? [] : refused.errors).toHaveLength(1);
    expect(() => writeFileSync(join(dir, "probe"), "")).not.toThrow();
    const text = actions({ name: "farm", baseUrl: upstream.url, version: 3, tools: ["milk"] });
    expect(await running.registry!.publish({ name: "farm.actions.yaml", text })).toEqual({
      published: true,
      name: "farm.actions.yaml",
      version: 2,
      tools: 2,
    });
    expect(running.registry!.status().sources.map((s) => s.name)).toEqual(["farm.actions.yaml", "pets.actions.yaml"]);
  });
});
