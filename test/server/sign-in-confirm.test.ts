// Issue 24, finding 13: a sign-in link forwarded to a victim stored the victim's provider token for the link's owner
// (the attacker). The callback now redeems the code but stores nothing: its page names the account the provider
// signed in and the principal the link was made for, and only a POST from that page, carrying its one-time sealed
// confirmation, stores the tokens. Through `serve` over HTTP with the loopback provider: a victim who follows the
// link and does not confirm (or cancels) stores nothing, and the owner's calls still go nowhere; the owner confirming
// works end to end; a cross-site post, a second post and a forged confirmation store nothing; in Chromium, the page
// as a person sees it, and its button, work under the page's CSP.

import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type ElicitRequestURLParams, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { startBrowser } from "../support/console.js";
import { json, Upstream } from "../support/upstream.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  confirmationOf,
  follow,
  openLink,
  postConfirmation,
  type SignInProvider,
  startSignInProvider,
} from "./sign-in-provider.js";

const OWNER = "mallory";
const OWNER_TOKEN = "mallory-mcp-token-0123456789abcdef";
/** How the server names the owner: a static token's principal. */
const PRINCIPAL = `static:${OWNER}`;
const KEY = randomBytes(32).toString("base64");

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

let api: Upstream;
let provider: SignInProvider;
let running: RunningServer;
let port: number;

beforeAll(async () => {
  api = await Upstream.start();
  vi.stubEnv("MCP_TOKENS", `${OWNER}=${OWNER_TOKEN}`);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await api?.close();
});

/** The provider (for this test) and a server whose callback is on a port of its own; both end with the test. */
async function setUp(): Promise<void> {
  provider = await startSignInProvider();
  port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "sign-in-confirm-"));
  const files = { spec: join(dir, "me.json"), settings: join(dir, "settings.json") };
  writeFileSync(
    files.spec,
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Me", version: "1" },
      servers: [{ url: api.url }],
      components: {
        securitySchemes: {
          octo: {
            type: "oauth2",
            flows: {
              authorizationCode: {
                authorizationUrl: `${provider.url}/authorize`,
                tokenUrl: `${provider.url}/token`,
                scopes: { "read:user": "read you" },
              },
            },
          },
        },
      },
      security: [{ octo: ["read:user"] }],
      paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
    }),
  );
  const signIn = {
    clientId: CLIENT_ID,
    clientSecret: "${SIGN_IN_SECRET}",
    publicUrl: `http://127.0.0.1:${port}`,
    revocationUrl: `${provider.url}/revoke`,
  };
  writeFileSync(
    files.settings,
    JSON.stringify({ tokenStore: { file: join(dir, "tokens.json") }, credentials: { octo: { perUser: { signIn } } } }),
  );
  running = await serve(files.spec, {
    transport: "http",
    port,
    config: files.settings,
    auth: { type: "static", tokenEnv: "MCP_TOKENS" },
    env: { OPENAPI_MCP_TOKEN_KEY: KEY, SIGN_IN_SECRET: CLIENT_SECRET },
    cache: false,
    log: () => {},
  });
  onTestFinished(() => running.close());
}
beforeEach(() => {
  api.reset();
  api.on("GET", "/me", json({ login: "octo" }));
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return free;
}

/** The link owner's client: its call asks for a sign-in, and it keeps the link (it does not open it itself). */
async function owner(): Promise<{
  call: () => Promise<Result>;
  link: () => Promise<string>;
  close: () => Promise<void>;
}> {
  await setUp();
  const client = new Client({ name: "owner", version: "0.0.0" }, { capabilities: { elicitation: { url: {} } } });
  const links: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    links.push((request.params as ElicitRequestURLParams).url);
    return { action: "decline" };
  });
  const headers = { authorization: `Bearer ${OWNER_TOKEN}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url!), { requestInit: { headers } }));
  const call = async () => (await client.callTool({ name: "getMe", arguments: {} })) as Result;
  return {
    call,
    link: async () => {
      await call();
      return links.at(-1)!;
    },
    close: () => client.close(),
  };
}

const signOut = () =>
  fetch(`http://127.0.0.1:${port}/signout`, { method: "POST", headers: { authorization: `Bearer ${OWNER_TOKEN}` } });

describe("a forwarded sign-in link", () => {
  it("stores nothing for a victim who follows it and does not confirm, and the page says whose assistant would act", async () => {
    const mallory = await owner();
    try {
      const link = await mallory.link();
      provider.user = "victim-vera";
      const { status, page } = await openLink(link);
      expect(status).toBe(200);
      // The page names the victim's account, the link's principal, and says what connecting would mean.
      expect(page).toContain(`<title>Connect victim-vera to ${PRINCIPAL}?</title>`);
      expect(page).toContain(
        `the assistant <strong>${PRINCIPAL}</strong> uses will act at octo as <strong>victim-vera</strong>`,
      );
      expect(page).toContain("If\nsomeone sent you this link, choose Cancel: they would act at octo as you.");
      // The provider issued the victim's token, and it is nowhere in the page.
      expect(provider.issued.access).toHaveLength(1);
      expect(page).not.toContain(provider.issued.access[0]!);
      // Vera closes the page. Mallory's calls still send nothing: no token was stored for him.
      const result = await mallory.call();
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("You have not signed in to octo yet");
      expect(api.requests).toHaveLength(0);
    } finally {
      await mallory.close();
    }
  });

  it("stores nothing when the victim cancels, and revokes the token at the provider", async () => {
    const mallory = await owner();
    try {
      provider.user = "victim-vera";
      const { status, text } = await follow(await mallory.link(), { answer: "cancel" });
      expect(status).toBe(200);
      expect(text).toBe(
        `Cancelled: nothing was stored, and your octo account does not act for ${PRINCIPAL}. You can close this page.\n`,
      );
      expect(provider.revoked).toContain(provider.issued.access.at(-1));
      expect((await mallory.call()).isError).toBe(true);
      expect(api.requests).toHaveLength(0);
    } finally {
      await mallory.close();
    }
  });

  it("refuses a post from another site, a second post and a forged confirmation, storing nothing", async () => {
    const mallory = await owner();
    try {
      provider.user = "victim-vera";
      const { page, callback } = await openLink(await mallory.link());
      const form = { "content-type": "application/x-www-form-urlencoded" };
      for (const headers of [
        { ...form, "sec-fetch-site": "cross-site" },
        { ...form, origin: "http://evil.example" },
      ]) {
        const crossSite = await postConfirmation({ callback, page, answer: "connect", headers });
        expect(crossSite.status).toBe(403);
        expect(await crossSite.text()).toBe("This confirmation was posted from another site; nothing was stored.\n");
      }
      const { confirmation } = confirmationOf(page);
      const forged = `${confirmation.slice(0, 20)}${confirmation[20] === "A" ? "B" : "A"}${confirmation.slice(21)}`;
      const forgedPage = page.replace(confirmation, forged);
      const refused = await postConfirmation({ callback, page: forgedPage, answer: "connect" });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toMatch(/not one this server made/);
      expect((await mallory.call()).isError).toBe(true);
      expect(api.requests).toHaveLength(0);
      // The page's own post works once (here the victim cancels); a second post of it stores nothing.
      expect((await postConfirmation({ callback, page, answer: "cancel" })).status).toBe(200);
      const again = await postConfirmation({ callback, page, answer: "connect" });
      expect(again.status).toBe(400);
      expect(await again.text()).toMatch(/was used already; nothing more was stored/);
      expect((await mallory.call()).isError).toBe(true);
      expect(api.requests).toHaveLength(0);
    } finally {
      await mallory.close();
    }
  });
});

describe("the owner's own sign-in", () => {
  it("stores the tokens once the owner confirms, and the call then carries them", async () => {
    const mallory = await owner();
    try {
      provider.user = "mallory-at-octo";
      const { status, text, page } = await follow(await mallory.link());
      expect(page).toContain(`<title>Connect mallory-at-octo to ${PRINCIPAL}?</title>`);
      expect(status).toBe(200);
      expect(text).toBe(`Signed in to octo for ${PRINCIPAL}. You can close this page and go back to your assistant.\n`);
      const result = await mallory.call();
      expect(result.isError).toBeFalsy();
      expect(api.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${provider.issued.access.at(-1)}`]);
    } finally {
      await signOut();
      await mallory.close();
    }
  });

  it("in Chromium: the page shows whom the account would act for, and its Connect button signs in", async () => {
    const mallory = await owner();
    const browser = await startBrowser();
    try {
      provider.user = "mallory-at-octo";
      const tab = await browser.context.newPage();
      const refusals: string[] = [];
      tab.on("console", (message) => refusals.push(message.text()));
      await tab.goto(await mallory.link());
      expect(await tab.locator("h1").innerText()).toBe(`Connect mallory-at-octo to ${PRINCIPAL}?`);
      await tab.getByRole("button", { name: `Connect mallory-at-octo to ${PRINCIPAL}` }).click();
      await tab.waitForURL(/\/oauth\/callback$/);
      expect(await tab.locator("body").innerText()).toContain(`Signed in to octo for ${PRINCIPAL}.`);
      // The CSP let the form post (a blocked form-action would show in the console).
      expect(refusals.filter((line) => /Content Security Policy/i.test(line))).toEqual([]);
      expect((await mallory.call()).isError).toBeFalsy();
      expect(api.requests).toHaveLength(1);
    } finally {
      await signOut();
      await browser.close();
      await mallory.close();
    }
  });
});
