// `openapi-mcp call` takes the shared state's options as `serve` does: with a settings file naming a Redis, the
// state secret from MCP_STATE_SECRET or --state-secret shares the OAuth client-credentials token with the replicas
// (one token request for two calls, nothing in clear in Redis), and no warning is printed about a flag `call`
// could not take; --state on its command line reaches Redis too.

import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { runCli } from "../support/cli.js";
import { tempDir, writeFile } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { dumpRedis } from "../support/redis-dump.js";
import { json, Upstream } from "../support/upstream.js";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";

const STATE_SECRET = "state-secret-of-call-and-the-replicas-01234";
const CLIENT_SECRET = "client-s3cret-of-call-5e2b";

let redis: RedisServer;
let admin: RedisConnection;
let api: Upstream;
let files: { spec: string; settings: string };

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
  api.reset();
  let issued = 0;
  api.on("POST", "/oauth/token", (context) =>
    json({ access_token: `tok-${++issued}`, token_type: "Bearer", expires_in: 3600 })(context),
  );
  api.on("GET", "/items", json({ items: [] }));
  const temp = tempDir();
  onTestFinished(() => temp.remove());
  const flows = { clientCredentials: { tokenUrl: `${api.url}/oauth/token`, scopes: {} } };
  files = {
    spec: writeFile(temp.dir, "items.openapi.json", {
      openapi: "3.0.3",
      info: { title: "Items", version: "1" },
      servers: [{ url: api.url }],
      components: { securitySchemes: { oauth: { type: "oauth2", flows } } },
      security: [{ oauth: [] }],
      paths: { "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } } },
    }),
    settings: writeFile(temp.dir, "settings.json", { state: redis.url }),
  };
});

const CREDENTIALS = { OAUTH_CLIENT_ID_OAUTH: "client-1", OAUTH_CLIENT_SECRET_OAUTH: CLIENT_SECRET };
const tokenRequests = (): number => api.to("/oauth/token").length;

describe("call with the shared state", () => {
  it("takes the state secret from MCP_STATE_SECRET or --state-secret: one token for both calls, no warning", async () => {
    const base = ["call", files.spec, "listItems", "--config", files.settings, "--no-cache"];
    const first = await runCli(base, { env: { ...CREDENTIALS, MCP_STATE_SECRET: STATE_SECRET } });
    expect(first.stderr).not.toContain("WARNING");
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli([...base, "--state-secret", STATE_SECRET], { env: CREDENTIALS });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("WARNING");
    // The second call used the token the first left in Redis.
    expect(tokenRequests()).toBe(1);
    const dump = await dumpRedis(redis.url);
    expect(dump).toMatch(/openapi-mcp:oauth:/);
    for (const secret of ["tok-1", CLIENT_SECRET, "client-1", STATE_SECRET]) expect(dump).not.toContain(secret);
  });

  it("reads --state from its command line", async () => {
    const result = await runCli(
      ["call", files.spec, "listItems", "--state", redis.url, "--state-secret", STATE_SECRET, "--no-cache"],
      { env: CREDENTIALS },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await dumpRedis(redis.url)).toMatch(/openapi-mcp:oauth:/);
  });
});
