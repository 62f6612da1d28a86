// Shutting down with a console page open: the Activity page's long poll (up to 25 s) is answered at once when the
// server closes (HttpMount.close), so closing with an admin watching Activity is as quick as closing without.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import { ROOT } from "../support/cli.js";

const PETSTORE = join(ROOT, "examples/petstore.openapi.yaml");
const ADMIN_TOKEN = "shutdown-admin-token-0123456789";

/** How long close() takes, with or without an admin's Activity poll open; and what that poll was answered. */
async function closing(withPoll: boolean): Promise<{ ms: number; poll?: number }> {
  const running = await serve(PETSTORE, {
    transport: "http",
    port: 0,
    console: true,
    consoleTokenEnv: "CONSOLE_TOKEN",
    baseUrl: "http://127.0.0.1:9",
    env: { CONSOLE_TOKEN: ADMIN_TOKEN, API_KEY_API_KEY: "petstore-key-0123456789" },
    log: () => {},
  });
  const origin = new URL(running.url!).origin;
  const login = await fetch(`${origin}/console/api/login`, {
    method: "POST",
    headers: { origin, "sec-fetch-site": "same-origin", "content-type": "application/json" },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  const poll = withPoll
    ? fetch(`${origin}/console/api/activity?after=0&wait=1`, { headers: { cookie } }).then(
        (response) => response.status,
        () => -1,
      )
    : undefined;
  if (poll) await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  await running.close();
  const ms = performance.now() - started;
  return { ms, ...(poll ? { poll: await poll } : {}) };
}

describe("shutdown with the console open", () => {
  it("answers an open Activity poll and closes as quickly as without one", async () => {
    const without = await closing(false);
    const withPoll = await closing(true);
    expect(withPoll.poll).toBe(200);
    // Before HttpMount.close the poll held the shutdown until its last second (+1 s or more).
    expect(withPoll.ms - without.ms).toBeLessThan(500);
  }, 30_000);
});
