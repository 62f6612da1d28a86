// A dry run sends nothing at all (issue 24): the engine's prepare with `dryRun` shows the request but fetches no
// OAuth client-credentials token and obtains no per-user value (an exchange or a refresh would reach the caller's
// authorization server). A recording loopback upstream is the API, its token endpoint and the per-user exchange at
// once: after the dry runs it has received nothing, and the request says what was not fetched.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/load/index.js";
import { startEngine } from "../../src/runtime/start.js";
import type { UserCredentials } from "../../src/runtime/credentials/user-credentials.js";
import { tempDir } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

let upstream: Upstream;
const temp = tempDir();

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("POST", "/token", json({ access_token: "issued", token_type: "Bearer", expires_in: 60 }));
  upstream.on("POST", "/exchange", json({ access_token: "exchanged", token_type: "Bearer", expires_in: 60 }));
  upstream.on("GET", /.*/, json({}));
});

afterAll(async () => {
  await upstream?.close();
  temp.remove();
});

/** An engine for one action whose auth is OAuth 2.0 client credentials at the upstream's /token. */
async function engine(userCredentials?: Record<string, UserCredentials>) {
  const file = join(temp.dir, "api.actions.yaml");
  writeFileSync(
    file,
    `name: api\nbaseUrl: ${upstream.url}\nauth: { type: oauth2, tokenUrl: "${upstream.url}/token", clientId: c, clientSecret: "\${SECRET}" }\nactions:\n  - { name: get, description: One., method: GET, path: /x, inputSchema: { type: object } }\n`,
  );
  const catalog = await loadCatalog(file, { allowInsecureHttp: true });
  return startEngine({
    catalog,
    env: { SECRET: "client-secret-77aa" },
    log: () => {},
    allowInsecureHttp: true,
    ...(userCredentials ? { userCredentials } : {}),
  });
}

describe("a dry run", () => {
  it("fetches no client-credentials token: the request says where it would come from", async () => {
    const prepared = await (await engine()).prepare("get", {}, { dryRun: true });
    if ("error" in prepared) throw new Error("refused");
    expect(prepared.request.headers.authorization).toBe(
      `Bearer <access token from ${upstream.url}/token, not fetched on a dry run>`,
    );
    expect(upstream.requests).toEqual([]);
  });

  it("obtains no per-user value (no exchange at the caller's authorization server)", async () => {
    const exchanged: UserCredentials = {
      mode: "exchange",
      description: "exchanged at the upstream",
      valueFor: async () => {
        const answer = await fetch(`${upstream.url}/exchange`, { method: "POST" });
        return { value: ((await answer.json()) as { access_token: string }).access_token };
      },
    };
    const prepared = await (await engine({ api: exchanged })).prepare("get", {}, { dryRun: true });
    if ("error" in prepared) throw new Error("refused");
    expect(prepared.request.headers.authorization).toBe(
      "Bearer <the caller's own credential, not obtained on a dry run>",
    );
    expect(upstream.requests).toEqual([]);
  });
});
