// `${cmd:NAME}` secrets end to end: credential processes (small scripts the test writes) named in the settings
// file's `secrets:`, behind the SDK client with a loopback API. Their stdout is the value; it is kept for its TTL
// and concurrent calls share one run; a 401 runs the command again before the one retry; a failing, silent or slow
// command (killed at its timeout) gives the call an isError naming the secret and nothing is sent; what a command
// writes to stderr never reaches the client, and reaches the log only masked.

import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/runtime/engine.js";
import { setUpEngine } from "../../src/app/setup.js";
import { rejection } from "../support/fixtures.js";
import {
  CANARY,
  connectProvider,
  echo,
  forbiddenForms,
  type InProcess,
  leaksIn,
  tempDir,
  textOf,
} from "../support/guard.js";
import { Upstream } from "../support/upstream.js";

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
const open: InProcess[] = [];

beforeAll(async () => {
  api = await Upstream.start();
  temp = tempDir("openapi-mcp-secret-commands-");
});
afterAll(async () => {
  await api.close();
  temp.remove();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  api.reset();
});

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };

let made = 0;
/**
 * A credential process: a shell script that counts its runs in `<script>.runs` and prints `token-<run>` (or does
 * what `body` says, with $N the run number).
 */
function script(body = 'echo "token-$N"'): { path: string; runs: () => number } {
  const path = join(temp.dir, `credential-${++made}.sh`);
  const runs = `${path}.runs`;
  writeFileSync(runs, "0");
  writeFileSync(path, `#!/bin/sh\nN=$(( $(cat '${runs}') + 1 ))\necho "$N" > '${runs}'\n${body}\n`);
  chmodSync(path, 0o700);
  return { path, runs: () => Number(readFileSync(runs, "utf8").trim()) };
}

async function connect(
  secrets: Record<string, unknown>,
  auth: Record<string, string> = { type: "bearer", token: "${cmd:vault}" },
): Promise<InProcess & { audit: string; log: string[]; engine: Engine }> {
  const source = join(temp.dir, `api-${++made}.actions.json`);
  writeFileSync(
    source,
    JSON.stringify({
      name: "commands",
      baseUrl: api.url,
      auth,
      actions: [{ name: "whoami", description: "Echoes the request.", method: "GET", path: "/echo" }],
    }),
  );
  const audit = join(temp.dir, `audit-${made}.jsonl`);
  const config = join(temp.dir, `settings-${made}.json`);
  writeFileSync(config, JSON.stringify({ auditLog: audit, secrets }));
  const log: string[] = [];
  const { engine } = await setUpEngine(source, { config, env: {}, cache: false, log: (line) => log.push(line) });
  const connected = await connectProvider(engine);
  open.push(connected);
  return { ...connected, audit, log, engine };
}

const whoami = async (c: InProcess): Promise<Result> =>
  (await c.client.callTool({ name: "whoami", arguments: {} })) as Result;
const sent = (): Array<string | undefined> => api.to("/echo").map((r) => r.headers.authorization);

describe("${cmd:NAME}", () => {
  it("uses the command's stdout, runs it once for concurrent calls, keeps it for its TTL, then runs it again", async () => {
    const vault = script();
    api.on("GET", "/echo", echo());
    const c = await connect({ vault: { command: [vault.path], ttlSeconds: 0.3 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => whoami(c)));
    for (const result of results) expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(vault.runs()).toBe(1);
    expect(sent()).toEqual(Array(10).fill("Bearer token-1"));
    await new Promise((resolve) => setTimeout(resolve, 400));
    await whoami(c);
    expect(vault.runs()).toBe(2);
    expect(sent().at(-1)).toBe("Bearer token-2");
    const line = JSON.parse(readFileSync(c.audit, "utf8").trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ outcome: "ok", secrets: ["cmd:vault"] });
    expect(JSON.stringify(line)).not.toContain("token-2");
  });

  it("a dry run does not run it (it may reach a secret manager): the request shows a placeholder, nothing is sent", async () => {
    const vault = script();
    const c = await connect({ vault: { command: [vault.path] } });
    const prepared = await c.engine.prepare("whoami", {}, { dryRun: true });
    if ("error" in prepared) throw new Error(textOf(prepared.error));
    expect(prepared.request.headers.authorization).toBe("Bearer <cmd:vault is not run on a dry run>");
    expect(prepared.placeholders).toEqual(["<cmd:vault is not run on a dry run>"]);
    expect(vault.runs()).toBe(0);
    expect(api.requests).toHaveLength(0);
  });

  it("a 401 runs the command again before the one retry, which carries the new value", async () => {
    const vault = script();
    api.on("GET", "/echo", (context) => {
      if (context.recorded.headers.authorization === "Bearer token-1") {
        context.res.writeHead(401, { "content-type": "application/json" }).end('{"error":"expired"}');
        return;
      }
      return echo()(context);
    });
    const c = await connect({ vault: { command: [vault.path], ttlSeconds: 3600 } });
    const result = await whoami(c);
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(sent()).toEqual(["Bearer token-1", "Bearer token-2"]);
    expect(vault.runs()).toBe(2);
  });

  it("a failing command: isError naming the secret, nothing sent, its stderr (holding the secret) not shown", async () => {
    const vault = script(`echo "${CANARY}"\necho "permission denied for ${CANARY}" >&2\nexit 3`);
    api.on("GET", "/echo", echo());
    const c = await connect({ vault: { command: [vault.path] } });
    const result = await whoami(c);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "whoami cannot be called: secret cmd:vault: the command failed (exit code 3). Nothing was sent.",
    );
    expect(api.to("/echo")).toHaveLength(0);
    const everything = [JSON.stringify(result), readFileSync(c.audit, "utf8"), c.log.join("\n")].join("\n");
    expect(leaksIn(everything, forbiddenForms())).toEqual([]);
    expect(c.log.join("\n")).toContain(
      "secret cmd:vault: the command failed (exit code 3); its stderr: permission denied for ****",
    );
    expect(JSON.parse(readFileSync(c.audit, "utf8").trim())).toMatchObject({ outcome: "secret_unavailable" });
  });

  it("a command that prints nothing, or that hangs (killed at its timeout, its children too): isError, nothing sent", async () => {
    const silent = script("exit 0");
    const slow = script("sleep 30\necho late");
    api.on("GET", "/echo", echo());
    const quiet = await connect({ vault: { command: [silent.path] } });
    expect(textOf(await whoami(quiet))).toContain("secret cmd:vault: the command printed nothing");
    const hung = await connect({ vault: { command: [slow.path], timeoutMs: 300 } });
    const result = await whoami(hung);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("secret cmd:vault: the command did not finish within 300 ms (killed)");
    expect(api.to("/echo")).toHaveLength(0);
  });

  it("what a working command prints to stderr reaches neither the client nor the log", async () => {
    const vault = script(`echo "debug: fetched ${CANARY}" >&2\necho "${CANARY}"`);
    api.on("GET", "/echo", echo({ as: "text" }));
    const c = await connect(
      { vault: { command: [vault.path] } },
      { type: "apiKey", in: "query", name: "key", value: "${cmd:vault}" },
    );
    const result = await whoami(c);
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(api.only().query).toBe(`key=${encodeURIComponent(CANARY)}`);
    const everything = [JSON.stringify(result), readFileSync(c.audit, "utf8"), c.log.join("\n")].join("\n");
    expect(leaksIn(everything, forbiddenForms())).toEqual([]);
    expect(everything).not.toContain("debug: fetched");
  });

  it("a ${cmd:NAME} the settings do not define stops the start, naming it and what is defined", async () => {
    const error = await rejection(connect({ other: { command: ["true"] } }));
    expect(error.message).toContain(
      "security scheme 'commands' (token): ${cmd:vault} names no credential process (the settings file's secrets: other)",
    );
  });
});
