// The Approvals API's defences and its timeout, from outside: a decision needs the admin's session, the session's
// CSRF token and a same-origin request, and a call nobody decides within the approval timeout is not sent.

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";
import { ADMIN_TOKEN, type ConsoleServer, startConsoleServer } from "../support/console.js";
import { tempDir, textOf, writeFile } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");

let upstream: Upstream;
let server: ConsoleServer;
let client: Client;
const temp = tempDir();

beforeAll(async () => {
  upstream = await Upstream.start();
  upstream.on("DELETE", "/pets/1", json({}));
  const config = writeFile(temp.dir, "settings.json", { approvals: "console", approvalTimeoutSeconds: 3 });
  server = await startConsoleServer({
    sources: [PETSTORE],
    args: ["--base-url", upstream.url, "--config", config],
    env: { API_KEY_API_KEY: "approvals-security-key" },
  });
  client = new Client({ name: "cannot-ask", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await upstream?.close();
  temp.remove();
});

async function session(): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${server.origin}/console/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.origin },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, csrf: ((await response.json()) as { csrf: string }).csrf };
}

async function pending(cookie: string): Promise<Array<{ id: string; tool: string }>> {
  const response = await fetch(`${server.origin}/console/api/approvals`, { headers: { cookie } });
  return ((await response.json()) as { pending: Array<{ id: string; tool: string }> }).pending;
}

function decide(id: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.origin}/console/api/approvals/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ decision: "approve" }),
  });
}

describe("the Approvals API", () => {
  it("refuses to list or decide without the admin's session, its CSRF token or a same-origin request", async () => {
    const calling = client.callTool({ name: "deletePet", arguments: { petId: 1 } });
    const { cookie, csrf } = await session();
    await expect.poll(() => pending(cookie), { timeout: 2_500 }).toHaveLength(1);
    const [waiting] = await pending(cookie);
    const same = { origin: server.origin, "sec-fetch-site": "same-origin" };
    expect((await fetch(`${server.origin}/console/api/approvals`)).status).toBe(401);
    expect((await decide(waiting!.id, same)).status).toBe(401);
    expect((await decide(waiting!.id, { ...same, cookie })).status).toBe(403);
    expect((await decide(waiting!.id, { cookie, "x-console-csrf": csrf, origin: "http://evil.example" })).status).toBe(
      403,
    );
    // Refused three times, the call is still waiting; it then times out, and nothing was sent.
    const result = await calling;
    expect(textOf(result)).toBe("deletePet was not sent: nobody approved it in time.");
    expect(upstream.requests).toHaveLength(0);
    expect(await pending(cookie)).toEqual([]);
    expect((await decide(waiting!.id, { ...same, cookie, "x-console-csrf": csrf })).status).toBe(409);
    expect(upstream.requests).toHaveLength(0);
  });
});
