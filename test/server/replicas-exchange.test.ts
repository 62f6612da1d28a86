// Exchanged per-user credentials (RFC 8693) across three replicas of `serve --transport http --auth oauth` sharing a
// real redis-server and a state secret, against the loopback authorization server and exchange endpoint: a
// principal's calls made at once through every replica make one exchange; Redis holds no token, principal or client
// id readable; a 401 through one replica makes the next call through another exchange again (once); while Redis is
// stopped each replica exchanges on its own and keeps answering, and once Redis is back they share again.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { serve } from "../../src/app/serve.js";
import type { RunningServer } from "../../src/app/serve-options.js";
import { tempDir, textOf, waitFor, writeFile } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { dumpRedis } from "../support/redis-dump.js";
import {
  EXCHANGE_CLIENT,
  type ExchangeEndpoint,
  startExchangeEndpoint,
  UPSTREAM_AUDIENCE,
} from "../support/token-exchange.js";
import { json, Upstream } from "../support/upstream.js";
import { type AuthServer, oauth, startAuthServer } from "./auth-support.js";

const STATE_SECRET = "state-secret-of-every-replica-exchange-0123";

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

let redis: RedisServer;
let admin: RedisConnection;
let api: Upstream;
/** Upstream tokens the API refuses (401), as after a revocation. */
const refused = new Set<string>();
// Per test (the authorization server closes with the test that started it).
let as: AuthServer;
let exchange: ExchangeEndpoint;
let files: { spec: string; config: string };

beforeAll(async () => {
  [redis, api] = await Promise.all([RedisServer.start(), Upstream.start()]);
  admin = await connectRedis({ url: redis.url, log: () => {} });
});
afterAll(async () => {
  await admin?.close();
  await api?.close();
  await redis?.stop();
});
beforeEach(async () => {
  await admin.sendCommand(["FLUSHALL"]);
  refused.clear();
  api.reset();
  api.on("GET", "/me", (context) => {
    const token = context.recorded.headers.authorization?.replace(/^Bearer /, "") ?? "";
    if (refused.has(token)) return json({ error: "invalid_token" }, { status: 401 })(context);
    return json({ ok: true })(context);
  });
});

/** The authorization server, its exchange endpoint, and the spec and settings every replica reads. */
async function setUp(): Promise<void> {
  as = await startAuthServer();
  exchange = await startExchangeEndpoint({ jwks: `http://127.0.0.1:${as.port}/jwks`, issuer: as.issuer });
  // Slow enough that calls through every replica arrive while the first exchange is under way.
  exchange.delayMs = 150;
  const temp = tempDir();
  onTestFinished(async () => {
    await exchange.close();
    temp.remove();
  });
  const spec = writeFile(temp.dir, "me.openapi.json", {
    openapi: "3.0.3",
    info: { title: "Me", version: "1" },
    servers: [{ url: api.url }],
    components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } },
    security: [{ token: [] }],
    paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
  });
  const config = writeFile(temp.dir, "settings.json", {
    credentials: {
      token: {
        perUser: {
          exchange: {
            tokenUrl: exchange.url,
            clientId: EXCHANGE_CLIENT.id,
            clientSecret: "${EXCHANGE_SECRET}",
            audience: UPSTREAM_AUDIENCE,
            scopes: ["me:read"],
          },
        },
      },
    },
  });
  files = { spec, config };
}

/** Three replicas, as on three machines: the same spec, settings, Redis and state secret. */
async function replicas(logs: string[] = []): Promise<RunningServer[]> {
  await setUp();
  const started = await Promise.all(
    [1, 2, 3].map((n) =>
      serve(files.spec, {
        transport: "http",
        port: 0,
        config: files.config,
        auth: oauth(as),
        env: { EXCHANGE_SECRET: EXCHANGE_CLIENT.secret },
        state: redis.url,
        stateSecrets: [STATE_SECRET],
        log: (line) => logs.push(`replica ${n}: ${line}`),
        cache: false,
      }),
    ),
  );
  onTestFinished(async () => {
    await Promise.all(started.map((running) => running.close()));
  });
  return started;
}

/** A client of `who` connected to each replica. */
async function clients(running: RunningServer[], who: string) {
  const token = await as.sign({ sub: who });
  return Promise.all(
    running.map(async (replica) => {
      const client = new Client({ name: who, version: "0.0.0" });
      const headers = { authorization: `Bearer ${token}` };
      await client.connect(new StreamableHTTPClientTransport(new URL(replica.url!), { requestInit: { headers } }));
      onTestFinished(() => client.close());
      return { client, token };
    }),
  );
}

/** `count` calls of getMe at once, spread round-robin over the clients; each must succeed. */
async function callAll(connected: Array<{ client: Client }>, count = 30): Promise<void> {
  const results = (await Promise.all(
    Array.from({ length: count }, (_, i) => connected[i % connected.length]!.client.callTool({ name: "getMe" })),
  )) as Result[];
  for (const result of results) expect(result.isError ?? false, textOf(result)).toBe(false);
}

const bearers = (): unknown[] => api.requests.map((request) => request.headers.authorization);
const subjects = (): string[] => exchange.exchanges.map((e) => e.subject);

describe("exchanged tokens shared by replicas through Redis", () => {
  it("30 calls by alice at once through three replicas make one exchange; Redis holds nothing readable", async () => {
    const running = await replicas();
    const alice = await clients(running, "alice");
    await callAll(alice);
    expect(subjects()).toEqual(["alice"]);
    expect(new Set(bearers())).toEqual(new Set(["Bearer upstream-alice-1"]));
    // Another principal has its own exchange, once.
    await callAll(await clients(running, "bob"), 9);
    expect(subjects()).toEqual(["alice", "bob"]);

    const dump = await dumpRedis(redis.url);
    expect(dump).toMatch(/openapi-mcp:exchange:/);
    for (const secret of [
      "upstream-alice-1",
      "upstream-bob-2",
      alice[0]!.token,
      EXCHANGE_CLIENT.secret,
      EXCHANGE_CLIENT.id,
      "alice",
      "bob",
      STATE_SECRET,
    ])
      expect(dump).not.toContain(secret);
  });

  it("a 401 through one replica makes the next call through another exchange again, once", async () => {
    const alice = await clients(await replicas(), "alice");
    await callAll(alice, 3);
    expect(subjects()).toEqual(["alice"]);
    refused.add("upstream-alice-1");
    // Refused on replica 1, which exchanges again and retries with the new token.
    expect(((await alice[0]!.client.callTool({ name: "getMe" })) as Result).isError ?? false).toBe(false);
    expect(bearers().slice(-2)).toEqual(["Bearer upstream-alice-1", "Bearer upstream-alice-2"]);
    // Replicas 2 and 3 read the new token from Redis: no refused call, no other exchange.
    api.reset();
    api.on("GET", "/me", json({ ok: true }));
    await callAll(alice.slice(1), 6);
    expect(new Set(bearers())).toEqual(new Set(["Bearer upstream-alice-2"]));
    expect(subjects()).toEqual(["alice", "alice"]);
  });

  it("while Redis is stopped each replica exchanges on its own and answers; once it is back, they share again", async () => {
    const logs: string[] = [];
    const running = await replicas(logs);
    const bob = await clients(running, "bob");
    await redis.stop();
    try {
      await callAll(bob, 6);
      // One exchange per replica, none refused.
      expect(subjects()).toEqual(["bob", "bob", "bob"]);
      expect(logs.filter((line) => line.includes("token-exchange cache in Redis cannot be read"))).toHaveLength(3);
    } finally {
      await redis.resume();
    }
    // Redis came back empty (no persistence here): once every replica has reconnected and its pause after the
    // failure is over, one exchange for all three.
    await waitFor(() => logs.filter((line) => line.includes("reachable again")).length === 3, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    exchange.exchanges.length = 0;
    await callAll(bob, 9);
    expect(subjects()).toEqual(["bob"]);
  });
});
