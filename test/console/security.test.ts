// The console's defences, checked from outside: nothing without admin login, no change from another site (a foreign
// Origin or Sec-Fetch-Site, a missing CSRF header), the strict Content-Security-Policy and companions on every
// answer, no start without an admin login configured, and every string of a hostile spec shown as text in a real
// browser (the generator tests' hostile spec: script tags, onerror handlers, mustaches), never run.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli } from "../support/cli.js";
import {
  ADMIN_TOKEN,
  type ConsoleBrowser,
  type ConsoleServer,
  logIn,
  screenshot,
  startBrowser,
  startConsoleServer,
} from "../support/console.js";
import { Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const HOSTILE = join(ROOT, "test/fixtures/generate/hostile.openapi.yaml");
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

let upstream: Upstream;
let server: ConsoleServer;

beforeAll(async () => {
  upstream = await Upstream.start();
  server = await startConsoleServer({ sources: [PETSTORE], args: ["--base-url", upstream.url] });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

/** A logged-in admin's cookie and CSRF token, as the login form gets them. */
async function session(): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${server.origin}/console/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.origin },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  expect(response.status).toBe(200);
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, csrf: ((await response.json()) as { csrf: string }).csrf };
}

function tryCall(headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.origin}/console/api/try`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ tool: "listPets", arguments: {} }),
  });
}

describe("console access", () => {
  it("answers nothing of the catalog, and calls nothing, without admin login", async () => {
    for (const path of ["tools", "tools/getPet", "session"])
      expect((await fetch(`${server.origin}/console/api/${path}`)).status).toBe(401);
    expect((await tryCall({ origin: server.origin, "sec-fetch-site": "same-origin" })).status).toBe(401);
    expect(upstream.requests).toHaveLength(0);
  });

  it("sets the session cookie HttpOnly and SameSite=Strict", async () => {
    const response = await fetch(`${server.origin}/console/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.origin },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    expect(response.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Strict/);
  });

  it("refuses cross-site POSTs: another site's Origin, Sec-Fetch-Site cross-site, no CSRF header, no origin at all", async () => {
    const { cookie, csrf } = await session();
    const evil = "http://evil.example";
    expect((await tryCall({ cookie, "x-console-csrf": csrf, origin: evil })).status).toBe(403);
    expect(
      (await tryCall({ cookie, "x-console-csrf": csrf, origin: server.origin, "sec-fetch-site": "cross-site" })).status,
    ).toBe(403);
    expect((await tryCall({ cookie, origin: server.origin })).status).toBe(403);
    expect((await tryCall({ cookie, "x-console-csrf": "forged", origin: server.origin })).status).toBe(403);
    expect((await tryCall({ cookie, "x-console-csrf": csrf })).status).toBe(403);
    const login = await fetch(`${server.origin}/console/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: evil },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    expect(login.status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
    // The same request from the console's own page goes through.
    expect((await tryCall({ cookie, "x-console-csrf": csrf, origin: server.origin })).status).toBe(200);
  });

  it("sends the strict Content-Security-Policy, nosniff and no-referrer with every answer", async () => {
    const { cookie } = await session();
    for (const path of ["/console/", "/console/assets/app.js", "/console/vendor/preact.mjs", "/console/api/tools"]) {
      const response = await fetch(`${server.origin}${path}`, { headers: { cookie } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-security-policy"), path).toBe(CSP);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
    }
    // The page itself holds no inline script or style for the policy to allow.
    const shell = await (await fetch(`${server.origin}/console/`)).text();
    expect(shell).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
  });

  it("does not start without an admin login, nor with a short admin token", async () => {
    const none = await runCli(["serve", PETSTORE, "--transport", "http", "--port", "0", "--console"]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("--console needs an admin login: --console-token-env VAR");
    const short = await runCli(
      ["serve", PETSTORE, "--transport", "http", "--port", "0", "--console", "--console-token-env", "T"],
      { env: { T: "short" } },
    );
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain("T holds fewer than 16 characters");
  });
});

describe("a hostile spec in the console", () => {
  let hostile: ConsoleServer;
  let browser: ConsoleBrowser;

  beforeAll(async () => {
    hostile = await startConsoleServer({ sources: [HOSTILE] });
    browser = await startBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await hostile?.stop();
  });

  it("shows every string as text: no script runs on the Tools or Try it pages", async () => {
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await logIn(page, hostile.origin);
    await page.waitForSelector(".tool-list li");
    const names = await page.locator(".tool-list li .name").allTextContents();
    expect(names.length).toBe(3);
    for (const name of names) {
      for (const which of ["tools", "try"]) {
        await page.goto(`${hostile.origin}/console/#/${which}/${encodeURIComponent(name)}`);
        await page.waitForSelector(which === "tools" ? "section.detail h2" : "section.try h2");
        expect(await page.locator("h2").last().textContent()).toBe(name);
      }
    }
    await page.goto(`${hostile.origin}/console/#/tools/${encodeURIComponent(names[0]!)}`);
    await page.waitForSelector("section.detail .description");
    await screenshot(page, "hostile");
    // The description's markup is there as characters, not as elements.
    expect(await page.locator("section.detail .description").textContent()).toContain("<img src=x onerror=alert(1)>");
    expect(await page.locator("section.detail img, section.detail script").count()).toBe(0);
    expect(dialogs).toEqual([]);
  });
});
