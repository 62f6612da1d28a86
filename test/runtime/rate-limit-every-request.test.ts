// Every request a call sends counts against its rate limit, as the API counts them: a resend after a 401 (after a
// `${cmd:}` credential process ran again, a real delay between the call's admission and that request), a redirect
// followed and a retry after a 503 each went out under the first request's admission, two arrivals within a
// window of one. Each now asks the limit again; with a limit of 1 per minute the API receives one request, and the
// call's answer says why there was no second.

import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/runtime/engine.js";
import { setUpEngine } from "../../src/app/setup.js";
import { echo, tempDir, textOf } from "../support/guard.js";
import { redirect, status, Upstream } from "../support/upstream.js";

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
let made = 0;

beforeAll(async () => {
  api = await Upstream.start();
  temp = tempDir("openapi-mcp-every-request-");
});
afterAll(async () => {
  await api.close();
  temp.remove();
});
afterEach(() => api.reset());

/** A credential process that takes 200 ms and prints `token-<run>`. */
function vault(): { path: string; runs: () => number } {
  const path = join(temp.dir, `vault-${++made}.sh`);
  const runs = `${path}.runs`;
  writeFileSync(runs, "0");
  writeFileSync(path, `#!/bin/sh\nN=$(( $(cat '${runs}') + 1 ))\necho "$N" > '${runs}'\nsleep 0.2\necho "token-$N"\n`);
  chmodSync(path, 0o700);
  return { path, runs: () => Number(readFileSync(runs, "utf8").trim()) };
}

/** An engine for one action at `path`, limited to one request a minute, its bearer token from a slow vault. */
async function engineFor(path: string): Promise<{ engine: Engine; runs: () => number }> {
  const source = join(temp.dir, `api-${++made}.actions.json`);
  writeFileSync(
    source,
    JSON.stringify({
      name: "limited",
      baseUrl: api.url,
      auth: { type: "bearer", token: "${cmd:vault}" },
      actions: [
        {
          name: "call",
          description: "One request a minute.",
          method: "GET",
          path,
          rateLimit: { requests: 1, windowSeconds: 60 },
        },
      ],
    }),
  );
  const config = join(temp.dir, `settings-${made}.json`);
  const process = vault();
  writeFileSync(config, JSON.stringify({ secrets: { vault: { command: [process.path], ttlSeconds: 3600 } } }));
  const { engine } = await setUpEngine(source, { config, env: {}, cache: false, log: () => {} });
  return { engine, runs: process.runs };
}

describe("each request a call sends asks the rate limit", () => {
  it("a resend after a 401 (the vault run again first) is not sent past the limit", async () => {
    api.on("GET", "/expired", (context) => {
      if (context.recorded.headers.authorization === "Bearer token-1") {
        context.res.writeHead(401, { "content-type": "application/json" }).end('{"error":"expired"}');
        return;
      }
      return echo()(context);
    });
    const { engine, runs } = await engineFor("/expired");
    const result = await engine.callTool("call", {});
    // The vault ran again after the 401, between the call's admission and the resend it then held back.
    expect(runs()).toBe(2);
    expect(api.to("/expired").map((r) => r.headers.authorization)).toEqual(["Bearer token-1"]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^\[GET\] ".*\/expired" was not sent: the rate limit for tool:call is reached; try again in 1 min\. /,
    );
  });

  it("a redirect is not followed past the limit", async () => {
    api.on("GET", "/moved", redirect(302, "/here"));
    api.on("GET", "/here", echo());
    const { engine } = await engineFor("/moved");
    const result = await engine.callTool("call", {});
    expect(api.requests.map((r) => r.path)).toEqual(["/moved"]);
    expect(textOf(result)).toMatch(
      /redirected to ".*\/here"; not followed: the rate limit for tool:call is reached; try again in 1 min/,
    );
  });

  it("a retry after a 503 is not sent past the limit: the 503 is the answer", async () => {
    api.on("GET", "/busy", status(503));
    const { engine } = await engineFor("/busy");
    const result = await engine.callTool("call", {});
    expect(api.to("/busy")).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("503");
  });
});
