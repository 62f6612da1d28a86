// The console's Activity page end to end: a real `serve --transport http --console` with static endpoint tokens (so
// agents have principals), calls from real SDK clients (ok, an upstream error, a denied tool), seen in Debian's
// Chromium as they happen, without a reload; filters narrow the log (on the server); the per-tool table counts the
// calls and their error rate; the API refuses without an admin session; the canary key shows nowhere, although one
// call's URL carries it (a value a client sent, which the console masks as it masks every configured secret).

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import {
  type ConsoleBrowser,
  type ConsoleServer,
  logIn,
  screenshot,
  startBrowser,
  startConsoleServer,
} from "../support/console.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const PET = { id: 7, name: "Rex", kind: { species: "dog", goodBoy: true } };
const CANARY = "canary-key-8d41a7c3e20f95";
const TOKENS = { "agent-a": "agent-a-token-0123456789abcdef", "agent-b": "agent-b-token-0123456789abcdef" };

let upstream: Upstream;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let page: Page;
const agents: Record<string, Client> = {};
const answers: string[] = [];
const contents: string[] = [];

async function agent(name: keyof typeof TOKENS): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TOKENS[name]}` } },
  });
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(transport);
  return client;
}

const shownTools = () => page.locator(".activity-log li").evaluateAll((items) => items.map((li) => li.dataset.tool));
const row = (tool: string) => page.locator(`.activity-table tr[data-tool="${tool}"]`);

beforeAll(async () => {
  // A denied tool is listed and refused when called (hidden, a call to it would be an unknown tool, not audited).
  const settings = join(mkdtempSync(join(tmpdir(), "activity-")), "settings.yaml");
  writeFileSync(settings, "deniedTools: refuse\n");
  upstream = await Upstream.start();
  upstream.on("GET", "/pets/7", json(PET));
  upstream.on("GET", "/pets/8", json({ message: "no such pet" }, { status: 404 }));
  upstream.on("GET", "/pets", json([PET]));
  server = await startConsoleServer({
    sources: [PETSTORE],
    args: [
      "--base-url",
      upstream.url,
      "--auth-token-env",
      "MCP_TOKENS",
      "--policy",
      "createPet=deny",
      "--config",
      settings,
    ],
    env: {
      API_KEY_API_KEY: CANARY,
      MCP_TOKENS: Object.entries(TOKENS)
        .map(([name, token]) => `${name}=${token}`)
        .join(","),
    },
  });
  agents.a = await agent("agent-a");
  agents.b = await agent("agent-b");
  browser = await startBrowser();
  page = await browser.context.newPage();
  page.on("response", async (response) => {
    if (response.url().includes("/console/api/")) answers.push(await response.text().catch(() => ""));
  });
}, 60_000);

afterAll(async () => {
  for (const client of Object.values(agents)) await client.close().catch(() => {});
  await browser?.close();
  await server?.stop();
  await upstream?.close();
});

describe("the console's Activity page", () => {
  it("answers the activity API to an admin session only, not to an agent's token", async () => {
    const bare = await fetch(`${server.origin}/console/api/activity`);
    expect(bare.status).toBe(401);
    const withAgentToken = await fetch(`${server.origin}/console/api/activity`, {
      headers: { authorization: `Bearer ${TOKENS["agent-a"]}` },
    });
    expect(withAgentToken.status).toBe(401);
    await logIn(page, server.origin);
    const asAdmin = await page.evaluate(async () => {
      const response = await fetch("/console/api/activity");
      return { status: response.status, lines: ((await response.json()) as { lines?: unknown[] }).lines };
    });
    expect(asAdmin).toEqual({ status: 200, lines: [] });
  });

  it("shows agents' calls live, without a reload: ok, an upstream error and a denied tool", async () => {
    await page.goto(`${server.origin}/console/#/activity`);
    await page.waitForSelector("text=No calls in the last hour.");
    expect(await page.locator("[data-replica]").textContent()).toContain("This replica only");
    // A reload would lose this.
    await page.evaluate(() => {
      (globalThis as unknown as { stayed: boolean }).stayed = true;
    });
    const ok = await agents.a!.callTool({ name: "getPet", arguments: { petId: 7 } });
    expect(ok.isError).toBeFalsy();
    await expect.poll(shownTools).toEqual(["getPet"]);
    const failed = await agents.b!.callTool({ name: "getPet", arguments: { petId: 8 } });
    expect(failed.isError).toBe(true);
    const denied = await agents.a!.callTool({ name: "createPet", arguments: { body: { id: 9, name: "Tom" } } });
    expect(denied.isError).toBe(true);
    // The canary as a value a client sent: it lands in the URL of listPets's audit line.
    await agents.b!.callTool({ name: "listPets", arguments: { tags: [CANARY] } });
    await expect.poll(shownTools).toEqual(["listPets", "createPet", "getPet", "getPet"]);
    const outcomes = await page
      .locator(".activity-log li")
      .evaluateAll((items) => items.map((li) => li.dataset.outcome));
    expect(outcomes).toEqual(["ok", "denied", "http_error", "ok"]);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
  });

  it("counts calls per tool with their error rate and latency, in the table and the chart", async () => {
    await expect.poll(() => row("getPet").locator("[data-calls]").textContent()).toBe("2");
    expect(await row("getPet").locator("[data-errors]").textContent()).toBe("1");
    expect(await row("getPet").locator("[data-rate]").textContent()).toBe("50%");
    expect(await row("createPet").locator("[data-rate]").textContent()).toBe("100%");
    expect(await row("listPets").locator("[data-rate]").textContent()).toBe("0%");
    expect(await page.locator(".activity-table tbody tr").count()).toBe(3);
    const chart = await page.locator("svg.activity-chart").getAttribute("aria-label");
    expect(chart).toContain("getPet: 2 calls, 1 not ok");
    await screenshot(page, "activity");
    contents.push(await page.content());
    // A line opens to the whole audit line from the keyboard.
    await page.locator(".activity-log li summary").nth(2).focus();
    await page.keyboard.press("Enter");
    const opened = await page.locator(".activity-log li details[open] pre").textContent();
    expect(JSON.parse(opened ?? "{}")).toMatchObject({ tool: "getPet", status: 404, outcome: "http_error" });
    expect(JSON.parse(opened ?? "{}").principal).toBe("static:agent-b");
    contents.push(await page.content());
  });

  it("narrows the log by tool, principal and outcome, with the keyboard too, and stays live under a filter", async () => {
    await page.selectOption("#filter-tool", "getPet");
    await expect.poll(shownTools).toEqual(["getPet", "getPet"]);
    await page.selectOption("#filter-tool", "");
    await page.selectOption("#filter-principal", "static:agent-b");
    await expect.poll(shownTools).toEqual(["listPets", "getPet"]);
    await page.selectOption("#filter-principal", "");
    // By keyboard: focus the outcome choice and pick "not ok (any)".
    await page.focus("#filter-outcome");
    await page.keyboard.press("ArrowDown");
    await expect.poll(shownTools).toEqual(["createPet", "getPet"]);
    // The server did the narrowing: the answer for this filter holds only the lines shown.
    const narrowed = await page.evaluate(async () => {
      const response = await fetch("/console/api/activity?outcome=not_ok");
      return ((await response.json()) as { lines: Array<{ tool: string }> }).lines.map((line) => line.tool);
    });
    expect(narrowed).toEqual(["createPet", "getPet"]);
    await page.selectOption("#filter-outcome", "");
    await page.selectOption("#filter-tool", "getPet");
    await expect.poll(shownTools).toEqual(["getPet", "getPet"]);
    await agents.a!.callTool({ name: "listPets", arguments: {} });
    await agents.a!.callTool({ name: "getPet", arguments: { petId: 7 } });
    await expect.poll(shownTools).toEqual(["getPet", "getPet", "getPet"]);
    await expect.poll(() => row("listPets").locator("[data-calls]").textContent()).toBe("2");
    contents.push(await page.content());
  });

  it("never shows the canary key in a page or an API answer", () => {
    expect(answers.length).toBeGreaterThan(5);
    expect(answers.some((text) => text.includes("listPets"))).toBe(true);
    for (const text of [...answers, ...contents]) expect(text).not.toContain(CANARY);
  });
});
