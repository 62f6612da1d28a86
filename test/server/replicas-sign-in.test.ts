// Signing in across replicas that share Redis (--state): a user signs in through replica A (the provider on
// loopback redirects to A's callback, as a browser would) and calls through replica B with that sign-in, without
// being asked again; each replica has its own state directory, as on two machines. The callback's confirmation page
// shown by A is confirmed through B, and only once. Everything in Redis is then read back (SCAN, TYPE,
// GET/HGETALL/ZRANGE): no access or refresh token, principal or scheme name in clear, nor any unkeyed digest of
// alice's principal (`static:alice.principal`) a guess could be checked against. Redis stopped: the signed-in call
// ends with a clear result and sends nothing; Redis back: it goes out again.

import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type ElicitRequestURLParams, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { connectRedis } from "../../src/runtime/shared/redis.js";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { forbiddenForms, leaksIn, textOf } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { dumpRedis, unkeyedDigests } from "../support/redis-dump.js";
import { json, Upstream } from "../support/upstream.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  follow,
  openLink,
  postConfirmation,
  type SignInProvider,
  startSignInProvider,
} from "./sign-in-provider.js";

const ALICE = "alice-mcp-token-0123456789abcdef";
const PRINCIPAL = "alice.principal";
const SCHEME = "octoUserSignIn";
const KEY = randomBytes(32).toString("base64");

let redis: RedisServer;
let api: Upstream;
let provider: SignInProvider;
beforeAll(async () => {
  // Durable, as production runs it: a restart keeps what was stored.
  [redis, api] = await Promise.all([RedisServer.start({ durable: true }), Upstream.start()]);
  api.on("GET", "/me", json({ login: "octo" }));
  vi.stubEnv("MCP_TOKENS", `${PRINCIPAL}=${ALICE}`);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await api?.close();
  await redis?.stop();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One replica: the same spec and settings (the callback on replica A), its own state directory. */
async function replica({ port, publicPort }: { port: number; publicPort: number }): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "replica-sign-in-"));
  const files = { spec: join(dir, "me.json"), settings: join(dir, "settings.json") };
  const flows = {
    authorizationCode: {
      authorizationUrl: `${provider.url}/authorize`,
      tokenUrl: `${provider.url}/token`,
      scopes: { "read:user": "read you" },
    },
  };
  writeFileSync(
    files.spec,
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Me", version: "1" },
      servers: [{ url: api.url }],
      components: { securitySchemes: { [SCHEME]: { type: "oauth2", flows } } },
      security: [{ [SCHEME]: ["read:user"] }],
      paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
    }),
  );
  const signIn = {
    clientId: CLIENT_ID,
    clientSecret: "${SIGN_IN_SECRET}",
    publicUrl: `http://127.0.0.1:${publicPort}`,
  };
  writeFileSync(files.settings, JSON.stringify({ credentials: { [SCHEME]: { perUser: { signIn } } } }));
  const running = await serve(files.spec, {
    transport: "http",
    port,
    config: files.settings,
    auth: { type: "static", tokenEnv: "MCP_TOKENS" },
    env: {
      OPENAPI_MCP_TOKEN_KEY: KEY,
      SIGN_IN_SECRET: CLIENT_SECRET,
      XDG_STATE_HOME: join(dir, "state"),
    },
    state: redis.url,
    cache: false,
    log: () => {},
  });
  onTestFinished(() => running.close());
  return running;
}

/**
 * Alice's client (2025-11-25, can open URLs), given a link to sign in at: `now` follows it, then answers; `later`
 * answers at once and follows it a moment later, as a browser opened beside the client would; `never` declines.
 */
async function alice(url: string, signIn: "now" | "later" | "never") {
  const client = new Client({ name: "alice", version: "0.0.0" }, { capabilities: { elicitation: { url: {} } } });
  const callbacks: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    if (signIn === "never") return { action: "decline" };
    const signingIn = follow((request.params as ElicitRequestURLParams).url).then(
      (r) => void callbacks.push(r.callback),
    );
    if (signIn === "now") await signingIn;
    return { action: "accept" };
  });
  const headers = { authorization: `Bearer ${ALICE}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  const call = async () => (await client.callTool({ name: "getMe", arguments: {} })) as { isError?: boolean };
  return { call, callbacks };
}

/** Forgets every sign-in (each test signs alice in afresh). */
async function dropSignIns(): Promise<void> {
  const redisConnection = await connectRedis({ url: redis.url, log: () => {} });
  await redisConnection.sendCommand(["FLUSHALL"]);
  await redisConnection.close();
}

const authorizations = () => api.to("/me").map((r) => r.headers.authorization);

describe("replicas sharing Redis", () => {
  it("a user signed in through replica A calls through replica B; Redis holds nothing readable", async () => {
    provider = await startSignInProvider();
    const [portA, portB] = [await freePort(), await freePort()];
    const [a, b] = await Promise.all([
      replica({ port: portA, publicPort: portA }),
      replica({ port: portB, publicPort: portA }),
    ]);
    const throughA = await alice(a.url!, "now");
    expect((await throughA.call()).isError).toBeFalsy();
    expect(throughA.callbacks).toHaveLength(1);
    const throughB = await alice(b.url!, "never");
    const result = await throughB.call();
    expect(result.isError, textOf(result)).toBeFalsy();
    const [access] = provider.issued.access;
    expect(authorizations()).toEqual([`Bearer ${access}`, `Bearer ${access}`]);
    // The sign-in's state, used on A, is refused on B too.
    const replayed = await fetch(throughA.callbacks[0]!.replace(`:${portA}/`, `:${portB}/`));
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toMatch(/was used already/);

    const dump = await dumpRedis(redis.url);
    expect(dump).toContain("openapi-mcp:user-tokens:");
    const forms = forbiddenForms([access!, provider.issued.refresh[0]!, ALICE, PRINCIPAL, SCHEME]);
    expect(leaksIn(dump, forms)).toEqual([]);
    expect(leaksIn(dump, unkeyedDigests([`static:${PRINCIPAL}`, SCHEME]))).toEqual([]);
    expect(leaksIn(dump, [KEY, Buffer.from(KEY, "base64").toString("hex")])).toEqual([]);
  });

  it("a call waiting on replica A for a sign-in that finishes through replica B goes out", {
    timeout: 20_000,
  }, async () => {
    provider = await startSignInProvider();
    const [portA, portB] = [await freePort(), await freePort()];
    const [a] = await Promise.all([
      replica({ port: portA, publicPort: portB }),
      replica({ port: portB, publicPort: portB }),
    ]);
    await dropSignIns();
    const client = await alice(a.url!, "later");
    const result = await client.call();
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(client.callbacks).toHaveLength(1);
    expect(client.callbacks[0]).toContain(`:${portB}/`);
    expect(authorizations().at(-1)).toBe(`Bearer ${provider.issued.access[0]}`);
  });

  it("a sign-in's page shown by replica A is confirmed through replica B, once", async () => {
    provider = await startSignInProvider();
    const [portA, portB] = [await freePort(), await freePort()];
    const [a] = await Promise.all([
      replica({ port: portA, publicPort: portA }),
      replica({ port: portB, publicPort: portA }),
    ]);
    await dropSignIns();
    const links: string[] = [];
    const client = new Client({ name: "alice", version: "0.0.0" }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      links.push((request.params as ElicitRequestURLParams).url);
      return { action: "decline" };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(a.url!), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    onTestFinished(() => client.close());
    const call = async () => (await client.callTool({ name: "getMe", arguments: {} })) as { isError?: boolean };
    expect((await call()).isError).toBe(true);
    const { page, callback } = await openLink(links[0]!);
    expect(callback).toContain(`:${portA}/`);
    // The browser's page is at A's origin (a balancer's, in production); its post lands on B.
    const headers = {
      "content-type": "application/x-www-form-urlencoded",
      origin: `http://127.0.0.1:${portA}`,
      "sec-fetch-site": "same-origin",
    };
    const onB = await postConfirmation({
      callback: callback.replace(`:${portA}/`, `:${portB}/`),
      page,
      answer: "connect",
      headers,
    });
    expect(await onB.text()).toMatch(/^Signed in to octoUserSignIn for static:alice\.principal\./);
    expect((await call()).isError).toBeFalsy();
    // Used on B, it is refused on A.
    const onA = await postConfirmation({ callback, page, answer: "connect", headers });
    expect(onA.status).toBe(400);
    expect(await onA.text()).toMatch(/was used already/);
  });

  it("fails closed while Redis is stopped: a clear result, nothing sent; works again when it is back", async () => {
    provider = await startSignInProvider();
    const port = await freePort();
    const running = await replica({ port, publicPort: port });
    const client = await alice(running.url!, "now");
    expect((await client.call()).isError).toBeFalsy();
    const sent = api.requests.length;
    const signIns = client.callbacks.length;
    await redis.stop();
    try {
      const refused = await client.call();
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /^getMe cannot be called: the stored sign-in cannot be read: the shared token store \(Redis\) is unreachable \(.+\); try again in a minute\. Nothing was sent\.$/,
      );
      expect(api.requests.length).toBe(sent);
    } finally {
      await redis.resume();
    }
    await expect.poll(async () => (await client.call()).isError ?? false, { timeout: 10_000 }).toBe(false);
    expect(api.requests.length).toBe(sent + 1);
    // Not asked to sign in again: the sign-in outlived the outage (a Redis that persists, as in production).
    expect(client.callbacks).toHaveLength(signIns);
  });
});
