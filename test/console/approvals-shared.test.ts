// The Approvals queue across replicas: two real `serve --transport http --console --state redis://…` processes
// sharing a real redis-server, an MCP client (the SDK's Client, no elicitation) calling A, and an admin using B's
// console API as the page does (login, session cookie, CSRF header, same origin). A call waiting on A is listed on
// B; B's yes sends it from A exactly once, B's no sends nothing; a second decision is refused, and of two admins
// deciding at once on A and B exactly one counts; A's audit log names the admin. With Redis stopped, the call waits and times out on A with nothing sent, and B's console says
// the queue cannot be reached.

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import { ADMIN_TOKEN, type ConsoleServer, startConsoleServer } from "../support/console.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { RedisServer } from "../support/redis.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const CANARY = "canary-key-shared-approvals-5f2c";
/** Every replica's: the queue's entries and decisions are sealed with it (without one, serve refuses a console). */
const STATE_SECRET = "state-secret-of-the-approval-replicas-0123";

let redis: RedisServer;
let upstream: Upstream;
let a: ConsoleServer;
let b: ConsoleServer;
let client: Client;
const temp = tempDir();

interface Listed {
  id: string;
  tool: string;
  method: string;
  url: string;
  arguments: Record<string, unknown>;
}

beforeAll(async () => {
  redis = await RedisServer.start();
  upstream = await Upstream.start();
  for (const id of [1, 2, 3]) upstream.on("DELETE", `/pets/${id}`, json({}));
  const config = writeFile(temp.dir, "settings.json", { approvals: "console", approvalTimeoutSeconds: 4 });
  const replica = () =>
    startConsoleServer({
      sources: [PETSTORE],
      args: ["--base-url", upstream.url, "--config", config, "--state", redis.url],
      env: { API_KEY_API_KEY: CANARY, MCP_STATE_SECRET: STATE_SECRET },
    });
  [a, b] = [await replica(), await replica()];
  client = new Client({ name: "cannot-ask", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${a.origin}/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await a?.stop();
  await b?.stop();
  await upstream?.close();
  await redis?.stop();
  temp.remove();
});

async function session(server: ConsoleServer): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${server.origin}/console/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.origin },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, csrf: ((await response.json()) as { csrf: string }).csrf };
}

async function listed(server: ConsoleServer, cookie: string): Promise<{ status: number; pending: Listed[] }> {
  const response = await fetch(`${server.origin}/console/api/approvals`, { headers: { cookie } });
  const body = (await response.json()) as { pending?: Listed[] };
  return { status: response.status, pending: body.pending ?? [] };
}

async function decide(server: ConsoleServer, id: string, decision: "approve" | "decline"): Promise<Response> {
  const { cookie, csrf } = await session(server);
  return fetch(`${server.origin}/console/api/approvals/${id}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      cookie,
      "x-console-csrf": csrf,
      origin: server.origin,
      "sec-fetch-site": "same-origin",
    },
    body: JSON.stringify({ decision }),
  });
}

function auditOf(server: ConsoleServer): Array<Record<string, unknown>> {
  return server
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("approvals shared through Redis", () => {
  it("lists a call waiting on A in B's console; B's yes sends it from A once, B's no sends nothing", async () => {
    const { cookie } = await session(b);
    const approving = client.callTool({ name: "deletePet", arguments: { petId: 1 } });
    await expect.poll(async () => (await listed(b, cookie)).pending.length, { timeout: 3_000 }).toBe(1);
    const [waiting] = (await listed(b, cookie)).pending;
    expect(waiting).toMatchObject({ tool: "deletePet", method: "DELETE", url: `${upstream.url}/pets/1` });
    expect(upstream.requests).toHaveLength(0);
    expect((await decide(b, waiting!.id, "approve")).status).toBe(200);
    expect((await approving).isError).toBeFalsy();
    // One-shot: a second admin's decision on the same call is refused.
    expect((await decide(b, waiting!.id, "decline")).status).toBe(409);
    expect((await decide(a, waiting!.id, "decline")).status).toBe(409);

    const declining = client.callTool({ name: "deletePet", arguments: { petId: 2 } });
    await expect.poll(async () => (await listed(b, cookie)).pending.length, { timeout: 3_000 }).toBe(1);
    const [second] = (await listed(b, cookie)).pending;
    expect((await decide(b, second!.id, "decline")).status).toBe(200);
    const declined = await declining;
    expect(textOf(declined)).toBe("deletePet was not sent: the person reviewing it declined.");
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /pets/1"]);
    expect(auditOf(a)).toContainEqual(
      expect.objectContaining({ tool: "deletePet", outcome: "ok", approvedBy: "console:admin" }),
    );
    expect(auditOf(a)).toContainEqual(
      expect.objectContaining({ tool: "deletePet", outcome: "not_approved", declinedBy: "console:admin" }),
    );
    expect((await listed(a, (await session(a)).cookie)).pending).toEqual([]);
    expect((await listed(b, cookie)).pending).toEqual([]);
  });

  it("takes one decision when two admins decide at once on two replicas", async () => {
    const calling = client.callTool({ name: "deletePet", arguments: { petId: 3 } });
    const { cookie } = await session(b);
    await expect.poll(async () => (await listed(b, cookie)).pending.length, { timeout: 3_000 }).toBe(1);
    const [waiting] = (await listed(b, cookie)).pending;
    const [onA, onB] = await Promise.all([decide(a, waiting!.id, "approve"), decide(b, waiting!.id, "decline")]);
    expect([onA.status, onB.status].sort()).toEqual([200, 409]);
    const sent = (await calling).isError ? [] : ["DELETE /pets/3"];
    expect(sent).toEqual(onA.status === 200 ? ["DELETE /pets/3"] : []);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /pets/1", ...sent]);
  });

  it("with Redis lost, the call waits on A and times out with nothing sent; B's console says why", async () => {
    upstream.reset();
    const { cookie } = await session(b);
    await redis.stop();
    const calling = client.callTool({ name: "deletePet", arguments: { petId: 4 } });
    const unreachable = await fetch(`${b.origin}/console/api/approvals`, { headers: { cookie } });
    expect(unreachable.status).toBe(503);
    expect(((await unreachable.json()) as { error: string }).error).toContain("cannot be reached");
    expect(textOf(await calling)).toBe("deletePet was not sent: nobody approved it in time.");
    expect(upstream.requests).toHaveLength(0);
    expect(a.stderr()).toContain("approvals: the shared queue in Redis cannot be reached");
    await redis.resume();
  }, 20_000);
});
