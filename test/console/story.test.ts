// Issue 18's browser story, end to end: a real `serve --transport http --console --registry <dir>` with the
// petstore in the registry, a loopback upstream, Debian's Chromium and real SDK clients (2025 sessions). The admin
// logs in, searches a tool, dry-runs and runs it; writes an action definition on the Author page (an error shown at
// its line and column first; the generator tests' hostile strings in it shown as text), tries one action, publishes
// it, and a connected client gets tools/list_changed and calls the new tool; the admin approves one queued call and
// declines another and sees both in Activity. A screenshot of each page goes to test-artifacts/console/.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
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

const CANARY = "canary-key-story-5c2e91";
const PET = { id: 7, name: "Rex", kind: { species: "dog", goodBoy: true } };
const hostile = parse(readFileSync(join(ROOT, "test/fixtures/generate/hostile.openapi.yaml"), "utf8"));
const HOSTILE_TITLE: string = hostile.info.title;
const HOSTILE_TEXT: string = hostile.paths["/items/{it-em.id}"].get.description;

let upstream: Upstream;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let page: Page;
const temp = tempDir();
const answers: string[] = [];
const dialogs: string[] = [];

/** The definition the admin writes: a greeting API on the upstream, with the hostile strings as descriptions. */
function definition(baseUrl: string): string {
  return `name: greetings
description: ${JSON.stringify(HOSTILE_TITLE)}
baseUrl: ${baseUrl}
auth: { type: none }
actions:
  - name: greet
    description: ${JSON.stringify(HOSTILE_TEXT)}
    method: GET
    path: /greetings/{who}
    inputSchema:
      type: object
      required: [who]
      properties:
        who: { type: string, description: Who to greet. }
`;
}

async function sdkClient(): Promise<{ client: Client; changes: () => number }> {
  const client = new Client({ name: "story", version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
  return { client, changes: () => changes };
}

function audit(): Array<Record<string, unknown>> {
  return server
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function shot(name: string): Promise<void> {
  await screenshot(page, `story-${name}`);
  answers.push(await page.content());
}

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("GET", "/pets/7", json(PET));
  upstream.on("GET", /^\/greetings\//, json({ hello: "Ada" }));
  upstream.on("DELETE", /^\/pets\/\d+$/, json({}));
  const registry = join(temp.dir, "registry");
  mkdirSync(registry);
  // The petstore served from the upstream (--base-url is for a single source; a registry has several).
  const petstore = readFileSync(join(ROOT, "examples/petstore.openapi.yaml"), "utf8");
  writeFileSync(join(registry, "petstore.yaml"), petstore.replace("https://petstore.example.com/v1", upstream.url));
  const config = writeFile(temp.dir, "settings.json", {
    approvals: "console",
    // A registry source uses only the secrets assigned to it, and sends them only to these origins.
    registrySecrets: { petstore: { secrets: ["API_KEY_PETSTORE_API_KEY"], origins: [upstream.url] } },
  });
  server = await startConsoleServer({
    sources: [],
    args: ["--registry", registry, "--config", config],
    env: { API_KEY_PETSTORE_API_KEY: CANARY },
  });
  browser = await startBrowser();
  page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("response", async (response) => {
    if (response.url().includes("/console/api/")) answers.push(await response.text().catch(() => ""));
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await upstream?.close();
  temp.remove();
});

describe("the console's story", () => {
  it("logs in and searches a tool", async () => {
    await logIn(page, server.origin);
    await page.waitForSelector(".tool-list li");
    await page.locator("body").press("/");
    await page.keyboard.type("get one pet");
    await expect.poll(() => page.locator(".tool-list li .name").first().textContent()).toBe("petstore__getPet");
    await page.keyboard.press("Enter");
    await page.waitForSelector("section.detail h2");
    expect(await page.locator("section.detail h2").textContent()).toBe("petstore__getPet");
    await shot("tools");
  });

  it("dry-runs it (the key masked, nothing sent) and runs it", async () => {
    await page.click("a.button:has-text('Try it')");
    await page.waitForSelector("section.try form");
    await page.fill("section.try input[type=number]", "7");
    await page.click("button[value=dry-run]");
    const request = await page.locator("[data-request]").textContent();
    expect(request).toContain(`GET ${upstream.url}/pets/7`);
    expect(request).toContain("x-api-key: ****");
    expect(upstream.requests).toHaveLength(0);
    await page.click("button[value=run]");
    await page.waitForSelector("[data-result]");
    expect(JSON.parse((await page.locator("[data-result]").textContent()) ?? "{}").structuredContent).toEqual(PET);
    expect(upstream.only().headers["x-api-key"]).toBe(CANARY);
    await shot("try");
  });

  it("authors a definition: an error at its line and column, then valid, one action tried, published; a client gets list_changed and calls it", async () => {
    const { client, changes } = await sdkClient();
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).not.toContain("greetings__greet");
    upstream.reset();
    upstream.on("GET", /^\/greetings\//, json({ hello: "Ada" }));
    await page.goto(`${server.origin}/console/#/author`);
    await page.waitForSelector("[data-source-text]");
    await page.fill("[data-name]", "greetings.yaml");
    // `methd` for `method`: the validator says where.
    const text = definition(upstream.url);
    await page.fill("[data-source-text]", text.replace("    method: GET", "    methd: GET"));
    await page.waitForSelector("[data-errors]");
    const errors = await page.locator("[data-errors] li").allTextContents();
    expect(errors.join("\n")).toMatch(/line 6, column 5 .*method/);
    expect(await page.locator("[data-publish]").isDisabled()).toBe(true);
    await shot("author-error");
    await page.fill("[data-source-text]", text);
    await page.waitForSelector("[data-valid]");

    await page.fill("section[aria-label='Try an action'] input", "Ada");
    await page.click("section[aria-label='Try an action'] button[value=dry-run]");
    expect(await page.locator("[data-request]").textContent()).toContain(`GET ${upstream.url}/greetings/Ada`);
    expect(upstream.requests).toHaveLength(0);
    await page.click("section[aria-label='Try an action'] button[value=run]");
    await page.waitForSelector("[data-result]");
    expect(JSON.parse((await page.locator("[data-result]").textContent()) ?? "{}").structuredContent).toEqual({
      hello: "Ada",
    });
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /greetings/Ada"]);
    expect(audit()).toContainEqual(
      expect.objectContaining({ tool: "greetings__greet", principal: "console:admin", outcome: "ok" }),
    );

    await page.click("[data-publish]");
    await page.waitForSelector("[data-published], [data-refused]");
    expect(await page.locator("[data-published], [data-refused]").textContent()).toContain("Published greetings.yaml");
    await expect.poll(() => page.locator("[data-source='greetings.yaml']").textContent()).toContain("published");
    await page.evaluate("window.scrollTo(0, 0)");
    await shot("author");
    await page.screenshot({ path: docsScreenshot("author.png") });
    await expect.poll(changes, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("greetings__greet");
    const called = await client.callTool({ name: "greetings__greet", arguments: { who: "Grace" } });
    expect(called.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toContain("GET /greetings/Grace");

    // The hostile strings are characters on the page, in the text and on the Tools page, never markup.
    expect(await page.locator("[data-source-text]").inputValue()).toContain(JSON.stringify(HOSTILE_TEXT));
    await page.goto(`${server.origin}/console/#/tools/greetings__greet`);
    await page.waitForSelector("section.detail .description");
    expect(await page.locator("section.detail .description").textContent()).toContain("<img src=x onerror=alert(1)>");
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(dialogs).toEqual([]);
    await client.close();
  });

  it("approves one queued call and declines another, and Activity shows both", async () => {
    const [first, second] = [await sdkClient(), await sdkClient()];
    upstream.reset();
    upstream.on("DELETE", /^\/pets\/\d+$/, json({}));
    const deleting = first.client.callTool({ name: "petstore__deletePet", arguments: { petId: 1 } });
    const declined = second.client.callTool({ name: "petstore__deletePet", arguments: { petId: 2 } });
    await page.goto(`${server.origin}/console/#/approvals`);
    await expect.poll(() => page.locator("li.approval").count(), { timeout: 10_000 }).toBe(2);
    await shot("approvals");
    const one = page.locator("li.approval", { hasText: "/pets/1" });
    const two = page.locator("li.approval", { hasText: "/pets/2" });
    await one.locator("button:has-text('Approve')").click();
    await two.locator("button:has-text('Decline')").click();
    expect((await deleting).isError).toBeFalsy();
    const refused = await declined;
    expect(textOf(refused)).toContain("declined");
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /pets/1"]);

    await page.goto(`${server.origin}/console/#/activity`);
    const deletions = page.locator(".activity-log li[data-tool=petstore__deletePet]");
    await expect
      .poll(() => deletions.evaluateAll((lines) => lines.map((li) => li.getAttribute("data-outcome")).sort()), {
        timeout: 10_000,
      })
      .toEqual(["not_approved", "ok"]);
    await page.selectOption("#filter-tool", "petstore__deletePet");
    await expect.poll(() => page.locator(".activity-log li").count()).toBe(2);
    await shot("activity");
    await first.client.close();
    await second.client.close();
  });

  it("never shows the canary key in any page or API answer", () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const text of answers) expect(text).not.toContain(CANARY);
  });
});
