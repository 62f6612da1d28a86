// Signed in per user (OAuth 2.0 authorization code + PKCE), end to end through `serve` over HTTP: a caller who has
// not signed in is asked to, through URL elicitation (a 2025-11-25 client, SDK v1) or input_required (a 2026-07-28
// client, SDK v2); the test follows the URL it is given (the provider on loopback signs in and redirects to the
// server's callback, as a browser would) and the call then goes out with that user's own token. Tokens are kept
// encrypted across a restart, refreshed before expiry, dropped on sign-out; forged, replayed or expired states, a
// code from another principal's sign-in and a refresh the provider refuses each end with a clear message, nothing
// sent upstream, nothing stored and no token shown.

import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ElicitRequestURLParams,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { json, status, Upstream } from "../support/upstream.js";
import { CLIENT_ID, CLIENT_SECRET, follow, type SignInProvider, startSignInProvider } from "./sign-in-provider.js";

const ALICE = "alice-mcp-token-0123456789abcdef";
const BOB = "bob-mcp-token-0123456789abcdef01";
const CAROL = "carol-mcp-token-0123456789abcdef";
const KEY = randomBytes(32).toString("base64");

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };
type Asked = { url: string; message: string; elicitationId?: string };

let api: Upstream;
beforeAll(async () => {
  api = await Upstream.start();
});
afterAll(() => api.close());
beforeEach(() => {
  api.reset();
  api.on("GET", "/me", json({ login: "octo" }));
  vi.stubEnv("MCP_TOKENS", `${ALICE},${BOB},${CAROL}`);
  onTestFinished(() => void vi.unstubAllEnvs());
});

const spec = (provider: SignInProvider) => ({
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
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Setup {
  provider: SignInProvider;
  dir: string;
  port: number;
  tokenFile: string;
  files: { spec: string; settings: string };
}

async function setUp(): Promise<Setup> {
  const provider = await startSignInProvider();
  const dir = mkdtempSync(join(tmpdir(), "sign-in-"));
  const port = await freePort();
  const tokenFile = join(dir, "state", "tokens.json");
  const files = { spec: join(dir, "me.json"), settings: join(dir, "settings.json") };
  writeFileSync(files.spec, JSON.stringify(spec(provider)));
  writeFileSync(
    files.settings,
    JSON.stringify({
      tokenStore: { file: tokenFile },
      credentials: {
        octo: {
          perUser: {
            signIn: {
              clientId: CLIENT_ID,
              clientSecret: "${SIGN_IN_SECRET}",
              publicUrl: `http://127.0.0.1:${port}`,
              revocationUrl: `${provider.url}/revoke`,
            },
          },
        },
      },
    }),
  );
  return { provider, dir, port, tokenFile, files };
}

async function start(setup: Setup, env: Record<string, string> = {}): Promise<RunningServer> {
  const running = await serve(setup.files.spec, {
    transport: "http",
    port: setup.port,
    config: setup.files.settings,
    auth: { type: "static", tokenEnv: "MCP_TOKENS" },
    env: { OPENAPI_MCP_TOKEN_KEY: KEY, SIGN_IN_SECRET: CLIENT_SECRET, ...env },
    cache: false,
    log: () => {},
  });
  onTestFinished(() => running.close());
  return running;
}

/** A 2025-11-25 client (SDK v1) that can open URLs: `onUrl` is what the person does with the link. */
async function legacyClient(
  url: string,
  token: string,
  onUrl: (asked: Asked) => Promise<"accept" | "decline"> = async (asked) => {
    await follow(asked.url);
    return "accept";
  },
  capabilities: Record<string, unknown> = { elicitation: { url: {} } },
) {
  const client = new Client({ name: "legacy", version: "0.0.0" }, { capabilities });
  const asked: Asked[] = [];
  if (capabilities.elicitation)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as ElicitRequestURLParams;
      asked.push({ url: params.url, message: params.message, elicitationId: params.elicitationId });
      return { action: await onUrl(params) };
    });
  // Told when a sign-in it was asked for has completed (notifications/elicitation/complete).
  const completed: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  const call = async () => (await client.callTool({ name: "getMe", arguments: {} })) as Result;
  return { client, asked, call, completed };
}

/** A 2026-07-28 client (SDK v2) that can open URLs. */
async function modernClient(url: string, token: string) {
  const client = new ModernClient(
    { name: "modern", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { url: {} } } },
  );
  const asked: Asked[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    const params = request.params as ElicitRequestURLParams;
    asked.push({ url: params.url, message: params.message });
    await follow(params.url);
    return { action: "accept" };
  });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  expect(client.getProtocolEra()).toBe("modern");
  const call = async () => (await client.callTool({ name: "getMe", arguments: {} })) as Result;
  return { asked, call, completed: undefined };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const authorizations = () => api.requests.map((r) => r.headers.authorization);
const textOf = (result: Result) => result.content.map((c) => c.text ?? "").join("\n");

describe("signed in per user", () => {
  it.each([
    ["a 2025-11-25 client (URL elicitation)", legacyClient],
    ["a 2026-07-28 client (input_required)", modernClient],
  ])("%s signs in through the URL it is asked to open, then calls with its own token", async (_, connect) => {
    const setup = await setUp();
    const running = await start(setup);
    const alice = await connect(running.url!, ALICE);
    const result = await alice.call();
    expect(result.isError).toBeFalsy();
    expect(alice.asked).toHaveLength(1);
    const asked = new URL(alice.asked[0]!.url);
    expect(asked.origin + asked.pathname).toBe(`${setup.provider.url}/authorize`);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${setup.port}/oauth/callback`);
    expect(asked.searchParams.get("scope")).toBe("read:user");
    expect(authorizations()).toEqual([`Bearer ${setup.provider.issued.access[0]}`]);
    // A 2025-11-25 client is told the sign-in it was asked for has completed.
    if (alice.completed) expect(alice.completed).toEqual([alice.asked[0]!.elicitationId]);
    // Asked once: the next call goes out at once.
    await alice.call();
    expect(alice.asked).toHaveLength(1);
    expect(api.requests).toHaveLength(2);
    // The token is in the store encrypted, nowhere in clear; no result shows it.
    expect(readFileSync(setup.tokenFile, "utf8")).not.toContain(setup.provider.issued.access[0]!);
    expect(JSON.stringify(result)).not.toContain(setup.provider.issued.access[0]!);
    expect(JSON.stringify(alice.asked)).not.toContain(setup.provider.issued.access[0]!);
  });

  it("sends nothing for a caller who has not signed in, and tells a client that cannot open URLs where to sign in", async () => {
    const setup = await setUp();
    const running = await start(setup);
    const bob = await legacyClient(running.url!, BOB, undefined, {});
    const result = await bob.call();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      new RegExp(
        `^getMe cannot be called: You have not signed in to octo yet\\. Open this link and sign in; the link is valid for 10 minutes: ${setup.provider.url}/authorize\\?\\S+ Then call again\\. Nothing was sent\\.$`,
      ),
    );
    expect(api.requests).toHaveLength(0);
    // Following that link signs bob in; his next call goes out.
    const link = /(http:\/\/\S+\/authorize\?\S+)/.exec(textOf(result))![1]!;
    expect((await follow(link)).status).toBe(200);
    expect((await bob.call()).isError).toBeFalsy();
    expect(api.requests).toHaveLength(1);
  });

  it("keeps each principal's token its own, across a restart", async () => {
    const setup = await setUp();
    let running = await start(setup);
    setup.provider.user = "user-a";
    await (await legacyClient(running.url!, ALICE)).call();
    setup.provider.user = "user-b";
    await (await legacyClient(running.url!, BOB)).call();
    await running.close();
    running = await start(setup);
    const declined = async () => "decline" as const;
    const alice = await legacyClient(running.url!, ALICE, declined);
    const bob = await legacyClient(running.url!, BOB, declined);
    await alice.call();
    await bob.call();
    const [aliceToken, bobToken] = setup.provider.issued.access;
    expect(authorizations()).toEqual([aliceToken, bobToken, aliceToken, bobToken].map((t) => `Bearer ${t}`));
    expect(alice.asked).toHaveLength(0);
  });

  it("refreshes a token before it expires, and asks to sign in again when the refresh is refused", async () => {
    const setup = await setUp();
    setup.provider.accessLifetime = 1; // refreshed a tenth of its lifetime early: after 0.9 s
    const running = await start(setup);
    const alice = await legacyClient(running.url!, ALICE);
    await alice.call();
    await sleep(1_000);
    await alice.call();
    expect(setup.provider.grants.map((g) => g.grant)).toEqual(["authorization_code", "refresh_token"]);
    expect(authorizations().at(-1)).toBe(`Bearer ${setup.provider.issued.access.at(-1)}`);
    setup.provider.expireRefreshTokens();
    await sleep(1_000);
    const declining = await legacyClient(running.url!, ALICE, async () => "decline");
    const result = await declining.call();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Your sign-in to octo has expired. Open this link and sign in");
    expect(api.requests).toHaveLength(2);
    expect(JSON.stringify(result)).not.toContain(setup.provider.issued.refresh.at(-1)!);
  });

  it("refreshes a token the API refuses (401) and sends the call again with the new one", async () => {
    const setup = await setUp();
    const running = await start(setup);
    const alice = await legacyClient(running.url!, ALICE);
    api.reset();
    api.on("GET", "/me", status(401), json({ login: "octo" }));
    const result = await alice.call();
    expect(result.isError).toBeFalsy();
    const [first, second] = setup.provider.issued.access;
    expect(authorizations()).toEqual([`Bearer ${first}`, `Bearer ${second}`]);
    expect(setup.provider.grants.map((g) => g.grant)).toEqual(["authorization_code", "refresh_token"]);
  });

  it("refuses a forged, a replayed and a re-bound state, storing and sending nothing", async () => {
    const setup = await setUp();
    const running = await start(setup);
    // Bob signed in before: nothing below may lose or change his tokens.
    setup.provider.user = "user-b";
    const bobBefore = await legacyClient(running.url!, BOB);
    await bobBefore.call();
    api.reset();
    api.on("GET", "/me", json({ login: "octo" }));
    let link = "";
    const alice = await legacyClient(running.url!, ALICE, async (asked) => {
      link = asked.url;
      return "decline";
    });
    await alice.call();
    const authorize = await fetch(link, { redirect: "manual" });
    const callback = new URL(authorize.headers.get("location")!);
    // Forged: the state changed by one character.
    const forged = new URL(callback);
    const state = forged.searchParams.get("state")!;
    forged.searchParams.set("state", `${state.slice(0, 10)}${state[10] === "A" ? "B" : "A"}${state.slice(11)}`);
    const forgedAnswer = await fetch(forged);
    expect(forgedAnswer.status).toBe(400);
    expect(await forgedAnswer.text()).toMatch(/not one this server made/);
    // A code from carol's sign-in with alice's state: the provider refuses it (PKCE), nothing is stored for alice.
    let carolLink = "";
    await (
      await legacyClient(running.url!, CAROL, async (asked) => {
        carolLink = asked.url;
        return "decline";
      })
    ).call();
    const carolCallback = new URL((await fetch(carolLink, { redirect: "manual" })).headers.get("location")!);
    const crossed = new URL(callback);
    crossed.searchParams.set("code", carolCallback.searchParams.get("code")!);
    const crossedAnswer = await fetch(crossed);
    expect(crossedAnswer.status).toBe(400);
    expect(await crossedAnswer.text()).toMatch(/octo refused this sign-in: .*invalid_grant.*nothing was stored/);
    // Replayed: alice's state, used once above, is refused the second time.
    const replayed = await fetch(callback);
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toMatch(/was used already/);
    expect((await alice.call()).isError).toBe(true);
    expect(api.requests).toHaveLength(0);
    // Bob's sign-in is as it was: his call goes out with his first token, and he is not asked again.
    await bobBefore.call();
    expect(authorizations()).toEqual([`Bearer ${setup.provider.issued.access[0]}`]);
    expect(bobBefore.asked).toHaveLength(1);
  });

  it("signs out: the tokens are dropped and revoked, and the next call asks again", async () => {
    const setup = await setUp();
    const running = await start(setup);
    const alice = await legacyClient(running.url!, ALICE);
    await alice.call();
    const signOut = (token?: string) =>
      fetch(`http://127.0.0.1:${setup.port}/signout`, {
        method: "POST",
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    expect((await signOut()).status).toBe(401);
    const answer = await signOut(ALICE);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("Signed out of octo.\n");
    expect(setup.provider.revoked).toEqual(
      new Set([setup.provider.issued.access[0], setup.provider.issued.refresh[0]]),
    );
    await alice.call();
    expect(alice.asked).toHaveLength(2);
  });
});

describe("the token store at start", () => {
  it("refuses to start without the encryption key, naming the variable", async () => {
    const setup = await setUp();
    await expect(start(setup, { OPENAPI_MCP_TOKEN_KEY: "" })).rejects.toThrow(
      /OPENAPI_MCP_TOKEN_KEY is not set: signing in \(.*settings\.json#\/credentials\/octo\/perUser\/signIn\) keeps users' tokens encrypted with it/,
    );
  });

  it("refuses to start on a damaged store, naming the file, and leaves it as it was", async () => {
    const setup = await setUp();
    const running = await start(setup);
    await (await legacyClient(running.url!, ALICE)).call();
    await running.close();
    writeFileSync(setup.tokenFile, "{ damaged");
    await expect(start(setup)).rejects.toThrow(`the token store ${setup.tokenFile} is damaged: it is not JSON`);
    expect(readFileSync(setup.tokenFile, "utf8")).toBe("{ damaged");
  });
});
