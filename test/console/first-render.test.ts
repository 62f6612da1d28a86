// The bound: the Tools page's first render within 1 s on loopback with GitHub's 1,223 tools, measured in
// Chromium from navigation start to the whole list painted (the page marks it, ui/tools.js), for a logged-in admin
// opening the console afresh.

import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import {
  type ConsoleBrowser,
  type ConsoleServer,
  logIn,
  screenshot,
  startBrowser,
  startConsoleServer,
} from "../support/console.js";

const GITHUB = `${ROOT}node_modules/@octokit/openapi/generated/api.github.com.json`;

let server: ConsoleServer;
let browser: ConsoleBrowser;

beforeAll(async () => {
  server = await startConsoleServer({ sources: [GITHUB], timeoutMs: 120_000 });
  browser = await startBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it("paints GitHub's 1,223 tools within 1 s of navigation", async () => {
  const page = await browser.context.newPage();
  await logIn(page, server.origin);
  await page.waitForSelector("html[data-tools-painted]");
  const times: number[] = [];
  // Three fresh navigations: the figure is the median, the bound holds for each.
  for (let run = 0; run < 3; run++) {
    await page.goto("about:blank");
    await page.goto(`${server.origin}/console/#/tools`);
    await page.waitForSelector("html[data-tools-painted]", { timeout: 10_000 });
    times.push(Number(await page.getAttribute("html", "data-tools-painted")));
  }
  expect(await page.locator(".tool-list li").count()).toBe(1223);
  await screenshot(page, "tools-github");
  console.log(`first render with GitHub's 1,223 tools: ${times.join(", ")} ms`);
  for (const ms of times) expect(ms).toBeLessThanOrEqual(1000);
}, 60_000);
