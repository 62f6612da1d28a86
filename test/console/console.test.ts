// The console end to end, as an admin uses it: a real `serve --transport http --console` on the bundled petstore
// example, calling a loopback upstream, driven in Debian's Chromium. Log in, search a tool, read its schemas, dry-run
// it (the request shown, the key masked, nothing sent), run it (the result as an agent gets it, the upstream called
// with the real key, the audit line naming the console admin), and a tool needing approval queued for the
// Approvals page (approvals.test.ts decides it). The canary key appears in no page, no API answer and no screenshot's page text. Screenshots of each page
// land in test-artifacts/console/.

import { join } from "node:path";
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
const CANARY = "canary-key-5f0c2e9b7a41d3";

let upstream: Upstream;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let page: Page;
/** Every console API answer the browser received, as text. */
const answers: string[] = [];
/** Every page's HTML as the screenshots show it. */
const contents: string[] = [];

async function shot(name: string): Promise<void> {
  await screenshot(page, name);
  contents.push(await page.content());
}

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("GET", "/pets/7", json(PET));
  server = await startConsoleServer({
    sources: [PETSTORE],
    args: ["--base-url", upstream.url],
    env: { API_KEY_API_KEY: CANARY },
  });
  browser = await startBrowser();
  page = await browser.context.newPage();
  page.on("response", async (response) => {
    if (response.url().includes("/console/api/")) answers.push(await response.text().catch(() => ""));
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await upstream?.close();
});

describe("the console in a browser", () => {
  it("shows the login form, and no tool, before the admin logs in", async () => {
    await page.goto(`${server.origin}/console/`);
    await page.waitForSelector("#token");
    await shot("login");
    const refused = await page.evaluate(async () => (await fetch("/console/api/tools")).status);
    expect(refused).toBe(401);
    expect(await page.locator(".tool-list").count()).toBe(0);
  });

  it("refuses a wrong token at the form", async () => {
    await page.fill("#token", "not-the-admin-token-at-all");
    await page.press("#token", "Enter");
    await expect.poll(() => page.locator("[role=alert]").textContent()).toContain("not the console's admin token");
  });

  it("logs in, lists every tool with its class, policy and token cost, and searches with /", async () => {
    await logIn(page, server.origin);
    await page.waitForSelector(".tool-list li");
    expect(await page.locator(".tool-list li").count()).toBe(5);
    expect(await page.locator(".count").textContent()).toBe("5 tools");
    // `/` from anywhere on the page goes to the search box.
    await page.locator("body").press("/");
    await page.keyboard.type("get one pet");
    await expect.poll(() => page.locator(".tool-list li .name").first().textContent()).toBe("getPet");
    await page.keyboard.press("Enter");
    await page.waitForSelector("section.detail h2");
    expect(await page.locator("section.detail h2").textContent()).toBe("getPet");
    const facts = await page.locator(".facts").textContent();
    expect(facts).toContain("read");
    expect(facts).toContain("allow");
    expect(facts).toMatch(/about \d+ tokens/);
    expect(await page.locator("pre.schema").first().textContent()).toContain('"petId"');
    await shot("tools");
  });

  it("dry-runs a call from a form made from the input schema: the request shown, the key masked, nothing sent", async () => {
    await page.click("a.button:has-text('Try it')");
    await page.waitForSelector("section.try form");
    await page.fill("section.try input[type=number]", "7");
    await page.click("button[value=dry-run]");
    const request = await page.locator("[data-request]").textContent();
    expect(request).toContain(`GET ${upstream.url}/pets/7`);
    expect(request).toContain("x-api-key: ****");
    expect(upstream.requests).toHaveLength(0);
    await shot("try-dry-run");
  });

  it("runs it: the upstream gets the real key, the page shows the result as an agent gets it, audited as the admin", async () => {
    await page.click("button[value=run]");
    await page.waitForSelector("[data-result]");
    const result = JSON.parse((await page.locator("[data-result]").textContent()) ?? "{}");
    expect(result.structuredContent).toEqual(PET);
    expect(result.isError).toBeUndefined();
    expect(upstream.only().headers["x-api-key"]).toBe(CANARY);
    await shot("try-run");
    const audit = server
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(audit).toContainEqual(
      expect.objectContaining({ tool: "getPet", principal: "console:admin", outcome: "ok" }),
    );
  });

  it("queues a tool whose policy is approve for the Approvals page, saying so, and sends nothing meanwhile", async () => {
    upstream.reset();
    await page.goto(`${server.origin}/console/#/try/deletePet`);
    await page.waitForSelector("section.try form");
    await page.fill("section.try input[type=number]", "7");
    await page.click("button[value=run]");
    const note = await page.locator(".note").textContent();
    expect(note).toContain("Waiting for approval: deletePet needs a person's yes.");
    expect(upstream.requests).toHaveLength(0);
  });

  it("never shows the canary key: not in any page, any API answer or a screenshot's page text", () => {
    expect(answers.length).toBeGreaterThan(5);
    for (const text of [...answers, ...contents]) expect(text).not.toContain(CANARY);
  });
});
