// The shared approval queue against whoever can write to Redis: two real `serve --console --state redis://…`
// replicas with the same MCP_STATE_SECRET, a real redis-server, an MCP client calling A, an admin's Chromium on B's
// Approvals page, and an attacker with a plain Redis connection. A decision written straight into Redis (naming
// `console:alice-the-cfo`) sends nothing; a valid decision copied from another call's key sends nothing; an entry
// copied to another id, rewritten, or made up is not shown on the page, nor decided; A logs what it ignored. Redis
// holds no tool, URL or argument of a waiting call.

import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type RedisConnection } from "../../src/runtime/shared/redis.js";
import { ROOT } from "../support/cli.js";
import {
  ADMIN_TOKEN,
  type ConsoleBrowser,
  type ConsoleServer,
  logIn,
  startBrowser,
  startConsoleServer,
} from "../support/console.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { dumpRedis } from "../support/redis-dump.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const STATE_SECRET = "state-secret-of-the-approval-replicas-0123";
const TIMEOUT_S = 3;
const NOT_APPROVED = "deletePet was not sent: nobody approved it in time.";

let redis: RedisServer;
let attacker: RedisConnection;
let upstream: Upstream;
let a: ConsoleServer;
let b: ConsoleServer;
let client: Client;
let browser: ConsoleBrowser;
let page: Page;
const temp = tempDir();

beforeAll(async () => {
  [redis, upstream] = await Promise.all([RedisServer.start(), Upstream.start()]);
  for (const id of [1, 2, 3, 4]) upstream.on("DELETE", `/pets/${id}`, json({}));
  const config = writeFile(temp.dir, "settings.json", { approvals: "console", approvalTimeoutSeconds: TIMEOUT_S });
  const replica = () =>
    startConsoleServer({
      sources: [PETSTORE],
      args: ["--base-url", upstream.url, "--config", config, "--state", redis.url],
      env: { API_KEY_API_KEY: "canary-key-forged-approvals-9e1d", MCP_STATE_SECRET: STATE_SECRET },
    });
  [a, b, browser] = await Promise.all([replica(), replica(), startBrowser()]);
  attacker = await connectRedis({ url: redis.url, log: () => {} });
  client = new Client({ name: "cannot-ask", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${a.origin}/mcp`)));
  page = await browser.context.newPage();
  await logIn(page, b.origin);
  await page.goto(`${b.origin}/console/#/approvals`);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await attacker?.close();
  await upstream?.close();
  await redis?.stop();
  temp.remove();
});

/** The id of the one call waiting, as the attacker reads it in Redis. */
async function waitingId(): Promise<string> {
  let ids: string[] = [];
  await expect
    .poll(
      async () => {
        ids = (await attacker.sendCommand(["ZRANGE", "openapi-mcp:approvals", "0", "-1"])) as string[];
        return ids.length;
      },
      { timeout: 5_000 },
    )
    .toBe(1);
  return ids[0]!;
}

/** An admin's decision through B's console API, as the page sends it. */
async function decide(id: string, decision: "approve" | "decline"): Promise<number> {
  const login = await fetch(`${b.origin}/console/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: b.origin },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf } = (await login.json()) as { csrf: string };
  const response = await fetch(`${b.origin}/console/api/approvals/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-console-csrf": csrf, origin: b.origin },
    body: JSON.stringify({ decision }),
  });
  return response.status;
}

function audit(): Array<Record<string, unknown>> {
  return a
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const sent = () => upstream.requests.map((r) => `${r.method} ${r.path}`);

describe("the shared approval queue, when someone writes to Redis", () => {
  it("a decision written straight into Redis approves nothing and names nobody", async () => {
    const calling = client.callTool({ name: "deletePet", arguments: { petId: 1 } });
    const id = await waitingId();
    const forged = JSON.stringify({ answer: "accept", by: "console:alice-the-cfo" });
    await attacker.sendCommand(["SET", `openapi-mcp:approval-decision:${id}`, forged, "PX", "60000"]);
    expect(textOf(await calling)).toBe(NOT_APPROVED);
    expect(sent()).toEqual([]);
    expect(JSON.stringify(audit())).not.toContain("alice-the-cfo");
    expect(a.stderr()).toContain(`approvals: ignored the value under openapi-mcp:approval-decision:${id} in Redis`);
  });

  it("an entry copied to another id, rewritten or made up is not shown on the page, nor decided", async () => {
    const calling = client.callTool({ name: "deletePet", arguments: { petId: 2 } });
    const id = await waitingId();
    const shown = page.locator("li.approval");
    const listed = async () => (await shown.locator(".request code").allTextContents()).join(" | ");
    await expect.poll(listed, { timeout: 5_000 }).toBe(`DELETE ${upstream.url}/pets/2`);
    // Redis holds the call's entry sealed: no tool, URL or argument in it.
    const dump = await dumpRedis(redis.url);
    expect(dump).toContain(`openapi-mcp:approval:${id}`);
    for (const text of ["deletePet", "/pets/2", "petId"]) expect(dump).not.toContain(text);
    const expiresAt = Date.now() + TIMEOUT_S * 1000;
    const add = async (entryId: string, value: string) => {
      await attacker.sendCommand(["SET", `openapi-mcp:approval:${entryId}`, value, "PX", "60000"]);
      await attacker.sendCommand(["ZADD", "openapi-mcp:approvals", String(expiresAt), entryId]);
    };
    // The genuine entry, as sealed for its own id, copied under another id.
    const genuine = String(await attacker.sendCommand(["GET", `openapi-mcp:approval:${id}`]));
    const copy = randomUUID();
    await add(copy, genuine);
    // The genuine entry rewritten to look harmless, and one made up, both naming another caller.
    const harmless = (entryId: string) =>
      JSON.stringify({
        id: entryId,
        request: {
          tool: "listPets",
          title: "List pets",
          method: "GET",
          url: `${upstream.url}/pets`,
          arguments: {},
          effect: "read",
          timeoutMs: TIMEOUT_S * 1000,
        },
        principal: "alice-the-cfo",
        askedAt: Date.now(),
        expiresAt,
      });
    const madeUp = randomUUID();
    await add(madeUp, harmless(madeUp));
    // The page asks every second: two answers later, still only the genuine call.
    await page.waitForTimeout(2_000);
    expect(await listed()).toBe(`DELETE ${upstream.url}/pets/2`);
    await attacker.sendCommand(["SET", `openapi-mcp:approval:${id}`, harmless(id), "KEEPTTL"]);
    await expect.poll(() => shown.count(), { timeout: 5_000 }).toBe(0);
    expect(await page.locator("p.empty").textContent()).toBe("No call is waiting.");
    expect(await page.content()).not.toContain("alice-the-cfo");
    expect(await decide(madeUp, "approve")).toBe(409);
    expect(await decide(copy, "approve")).toBe(409);
    expect(textOf(await calling)).toBe(NOT_APPROVED);
    expect(sent()).toEqual([]);
  });

  it("a valid decision copied from another call's key does not approve", async () => {
    const first = client.callTool({ name: "deletePet", arguments: { petId: 3 } });
    const approved = await waitingId();
    expect(await decide(approved, "approve")).toBe(200);
    expect((await first).isError).toBeFalsy();
    const second = client.callTool({ name: "deletePet", arguments: { petId: 4 } });
    const id = await waitingId();
    const decision = String(await attacker.sendCommand(["GET", `openapi-mcp:approval-decision:${approved}`]));
    await attacker.sendCommand(["SET", `openapi-mcp:approval-decision:${id}`, decision, "PX", "60000"]);
    expect(textOf(await second)).toBe(NOT_APPROVED);
    expect(sent()).toEqual(["DELETE /pets/3"]);
  });
});
