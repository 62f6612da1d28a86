// The Approvals page end to end: a real `serve --transport http --console` with `approvals: console`, two real MCP
// clients (the v1 SDK's Client, one declaring form elicitation as 2025 clients do, one declaring nothing) each
// calling a tool that needs approval, and an admin in Debian's Chromium who sees both calls queued (tool, method,
// URL, masked arguments, who asked, time left), approves one and declines the other. The upstream receives exactly
// the approved call; the audit log names the admin on both; the client that could be asked is never asked (the
// route is the console's); the canary key, given as an argument, appears in no page or API answer. A call from the
// Try it page waits in the same queue and is sent once approved there.

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import {
  docsScreenshot,
  type ConsoleBrowser,
  type ConsoleServer,
  logIn,
  screenshot,
  startBrowser,
  startConsoleServer,
} from "../support/console.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const CANARY = "canary-key-approvals-8d1e4b";
const PET = { id: 9, name: "Rex", kind: { species: "dog", goodBoy: true } };

let upstream: Upstream;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let page: Page;
const temp = tempDir();
const answers: string[] = [];
const asked: string[] = [];

async function mcpClient(elicit: boolean): Promise<Client> {
  const client = new Client(
    { name: elicit ? "asks" : "cannot-ask", version: "1.0.0" },
    {
      capabilities: elicit ? { elicitation: { form: {} } } : {},
    },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approve: true } };
    });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
  return client;
}

function audit(): Array<Record<string, unknown>> {
  return server
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("DELETE", "/pets/1", json({}));
  upstream.on("DELETE", "/pets/2", json({}));
  upstream.on("POST", "/pets", json(PET, { status: 201 }));
  const config = writeFile(temp.dir, "settings.json", { approvals: "console", policy: { createPet: "approve" } });
  server = await startConsoleServer({
    sources: [PETSTORE],
    args: ["--base-url", upstream.url, "--config", config],
    env: { API_KEY_API_KEY: CANARY },
  });
  browser = await startBrowser();
  page = await browser.context.newPage();
  page.on("response", async (response) => {
    if (response.url().includes("/console/api/")) answers.push(await response.text().catch(() => ""));
  });
  await logIn(page, server.origin);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await upstream?.close();
  temp.remove();
});

describe("approvals in the console", () => {
  it("queues both clients' calls, the admin approves one and declines the other, and only the approved one is sent", async () => {
    const [withElicitation, without] = [await mcpClient(true), await mcpClient(false)];
    const deleting = withElicitation.callTool({ name: "deletePet", arguments: { petId: 1 } });
    const creating = without.callTool({
      name: "createPet",
      arguments: { body: { name: CANARY, kind: { species: "cat", indoor: true } } },
    });
    await page.goto(`${server.origin}/console/#/approvals`);
    await expect.poll(() => page.locator("li.approval").count(), { timeout: 10_000 }).toBe(2);
    const deletion = page.locator("li.approval[data-approval=deletePet]");
    const creation = page.locator("li.approval[data-approval=createPet]");
    expect(await deletion.locator(".request code").textContent()).toBe(`DELETE ${upstream.url}/pets/1`);
    expect(await deletion.locator(".facts").textContent()).toContain("an unauthenticated client");
    expect(await deletion.locator("[data-left]").textContent()).toMatch(/^[45] min \d+ s$/);
    expect(await deletion.locator("[data-message]").textContent()).toContain("Approve this call? It deletes data");
    const message = await creation.locator("[data-message]").textContent();
    expect(message).toContain(`Request: POST ${upstream.url}/pets`);
    expect(message).toContain('"name": "****"');
    expect(upstream.requests).toHaveLength(0);
    await screenshot(page, "approvals");
    await page.screenshot({ path: docsScreenshot("approvals.png") });
    expect(await page.content()).not.toContain(CANARY);

    await deletion.locator("button:has-text('Approve')").click();
    await creation.locator("button:has-text('Decline')").click();
    const [deleted, created] = [await deleting, await creating];
    expect(deleted.isError).toBeFalsy();
    expect(created.isError).toBe(true);
    expect(textOf(created)).toBe("createPet was not sent: the person reviewing it declined.");
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /pets/1"]);
    expect(asked).toEqual([]);
    expect(audit()).toContainEqual(
      expect.objectContaining({ tool: "deletePet", outcome: "ok", approvedBy: "console:admin" }),
    );
    expect(audit()).toContainEqual(
      expect.objectContaining({ tool: "createPet", outcome: "not_approved", declinedBy: "console:admin" }),
    );
    await expect.poll(() => page.locator("p.empty").textContent()).toBe("No call is waiting.");
    await withElicitation.close();
    await without.close();
  });

  it("queues a call from the Try it page, and sends it once approved on the Approvals page", async () => {
    upstream.reset();
    upstream.on("DELETE", "/pets/2", json({}));
    await page.goto(`${server.origin}/console/#/try/deletePet`);
    await page.waitForSelector("section.try form");
    await page.fill("section.try input[type=number]", "2");
    await page.click("button[value=run]");
    expect(await page.locator(".note").textContent()).toContain("Waiting for approval");
    await page.click(".note a");
    await page.locator("li.approval[data-approval=deletePet] button:has-text('Approve')").click();
    await expect.poll(() => upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /pets/2"]);
    await expect
      .poll(() => audit().filter((line) => line.tool === "deletePet" && line.principal === "console:admin"))
      .toEqual([expect.objectContaining({ outcome: "ok", approvedBy: "console:admin" })]);
  });

  it("never shows the canary: not in any page or API answer", () => {
    expect(answers.length).toBeGreaterThan(3);
    for (const text of answers) expect(text).not.toContain(CANARY);
  });
});
