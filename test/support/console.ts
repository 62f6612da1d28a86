// The console's test parts: a real `openapi-mcp serve --transport http --console` (the built CLI, a child process)
// and Debian's Chromium driven by playwright-core, each started on loopback and stopped by the test. Screenshots go
// to test-artifacts/console/ (gitignored; CI keeps that folder as the run's artifacts).

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { ROOT } from "./cli.js";
import { spawnCli, waitFor } from "./guard.js";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = join(ROOT, "test-artifacts/console");
export const ADMIN_TOKEN = "console-admin-token-0123456789abcdef";

/**
 * Where a screenshot the README shows is written: test-artifacts/console/ on an ordinary run, so running the tests
 * leaves the tree clean; docs/console/ when UPDATE_DOCS_SCREENSHOTS=1 asks to refresh the README's pictures.
 */
export function docsScreenshot(name: string): string {
  return process.env.UPDATE_DOCS_SCREENSHOTS === "1" ? join(ROOT, "docs/console", name) : join(ARTIFACTS, name);
}
const SERVING = /serving \d+ tools at (http:\/\/\S+)\/mcp/;

export interface ConsoleServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  stderr(): string;
  stop(): Promise<void>;
}

export async function startConsoleServer({
  sources,
  args = [],
  env = {},
  timeoutMs = 20_000,
  adminToken = true,
}: {
  sources: string[];
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /** false: no `--console-token-env`, so only OAuth admins log in (give the `--auth-…` options in `args`). */
  adminToken?: boolean;
}): Promise<ConsoleServer> {
  const spawned = spawnCli(
    [
      "serve",
      ...sources,
      "--transport",
      "http",
      "--port",
      "0",
      "--console",
      ...(adminToken ? ["--console-token-env", "CONSOLE_TOKEN"] : []),
      "--audit-log",
      "-",
      ...args,
    ],
    { CONSOLE_TOKEN: ADMIN_TOKEN, ...env },
  );
  const stop = async () => {
    if (spawned.child.exitCode === null) spawned.child.kill("SIGTERM");
    await spawned.exited;
  };
  await waitFor(() => SERVING.test(spawned.stderr()) || spawned.child.exitCode !== null, timeoutMs);
  const origin = SERVING.exec(spawned.stderr())?.[1];
  if (!origin) {
    await stop();
    throw new Error(`serve did not start:\n${spawned.stderr()}`);
  }
  return { origin, stderr: spawned.stderr, stop };
}

export interface ConsoleBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium headless with a fresh profile, a laptop-sized window. */
export async function startBrowser(): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "console-chromium-"));
  // A persistent context is how playwright takes a profile directory of our choosing.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1366, height: 800 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Logs in at the console's form, as a person would. */
export async function logIn(page: Page, origin: string, token = ADMIN_TOKEN): Promise<void> {
  await page.goto(`${origin}/console/`);
  await page.fill("#token", token);
  await page.press("#token", "Enter");
  await page.waitForSelector("header.top");
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

export interface ConsoleApi {
  /** `POST /console/api/<path>` as the console's own page sends it (session cookie, CSRF header, same origin). */
  post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  get(path: string): Promise<{ status: number; json: Record<string, unknown> }>;
}

/** Logs in with the admin token over HTTP and calls the console's API as its page would. */
export async function consoleApi(origin: string, token = ADMIN_TOKEN): Promise<ConsoleApi> {
  const login = await fetch(`${origin}/console/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ token }),
  });
  if (login.status !== 200) throw new Error(`console login: ${login.status}`);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf } = (await login.json()) as { csrf: string };
  const answer = async (response: Response) => ({
    status: response.status,
    json: (await response.json().catch(() => ({}))) as Record<string, unknown>,
  });
  return {
    post: async (path, body) =>
      answer(
        await fetch(`${origin}/console/api/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie, "x-console-csrf": csrf, origin },
          body: JSON.stringify(body),
        }),
      ),
    get: async (path) => answer(await fetch(`${origin}/console/api/${path}`, { headers: { cookie } })),
  };
}
