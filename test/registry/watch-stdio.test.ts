// `openapi-mcp serve <file> --watch` over stdio, the built CLI driven by the SDK's StdioClientTransport: the
// opening (answered before the SDK loads, early.ts) declares tools.listChanged, and a change saved to the file is
// published: the client is told tools/list_changed, lists the new tool and calls it.

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { CLI } from "../support/cli.js";
import { actions, registryDir, resultJson, save, versionUpstream } from "./support.js";

describe("serve --watch over stdio", () => {
  it("tells the client the tools changed when the file is saved, and serves the new tool", async () => {
    const { dir, remove } = registryDir();
    onTestFinished(remove);
    const upstream = await versionUpstream();
    onTestFinished(() => upstream.close());
    save({
      dir,
      file: "pets.actions.yaml",
      text: actions({ name: "pets", baseUrl: upstream.url, version: 1, tools: ["list"] }),
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", join(dir, "pets.actions.yaml"), "--watch", "--no-cache"],
      stderr: "pipe",
    });
    const client = new Client({ name: "registry-test", version: "0.0.0" });
    let told = (): void => {};
    const changed = new Promise<void>((resolve) => {
      told = resolve;
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => told());
    await client.connect(transport);
    onTestFinished(() => client.close());
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["list"]);
    // Let the SDK take over from the early answers, as a client that keeps working would.
    expect(resultJson(await client.callTool({ name: "list", arguments: {} }))).toEqual({ version: 1, tool: "list" });
    save({
      dir,
      file: "pets.actions.yaml",
      text: actions({ name: "pets", baseUrl: upstream.url, version: 2, tools: ["list", "adopt"] }),
    });
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["list", "adopt"]);
    expect(resultJson(await client.callTool({ name: "adopt", arguments: {} }))).toEqual({ version: 2, tool: "adopt" });
  });
});
