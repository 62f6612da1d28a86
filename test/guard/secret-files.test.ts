// `${file:PATH}` secrets end to end, with real files and a loopback API behind the SDK client: the value sent is the
// file's content without its trailing newline; a rotated file (rename, in-place rewrite, a Kubernetes-style symlink
// swap) is used by the next call without a restart, and calls racing a rewrite never send half a value; a file
// others may read is refused at start unless allowed; every form of the value (old ones too) is masked, and the
// audit line names the reference, never the value. Also `--auth bearer:file:PATH` and static headers.

import { chmodSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setUpEngine } from "../../src/app/setup.js";
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
import { rejection } from "../support/fixtures.js";
import { Upstream } from "../support/upstream.js";

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
const open: InProcess[] = [];

beforeAll(async () => {
  api = await Upstream.start();
  temp = tempDir("openapi-mcp-secret-files-");
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

let files = 0;
/** A secret file with mode 600 (as Docker and a careful operator write it), or the mode given. */
function secretFile(content: string, mode = 0o600): string {
  const path = join(temp.dir, `secret-${++files}`);
  writeFileSync(path, content, { mode });
  chmodSync(path, mode);
  return path;
}

/** An action definition whose one action (GET /echo) sends `auth`, plus static `headers`. */
function definition({ auth, headers }: { auth?: Record<string, string>; headers?: Record<string, string> }): string {
  const path = join(temp.dir, `api-${++files}.actions.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name: "files",
      baseUrl: api.url,
      ...(auth ? { auth } : {}),
      ...(headers ? { headers } : {}),
      actions: [{ name: "whoami", description: "Echoes the request.", method: "GET", path: "/echo" }],
    }),
  );
  return path;
}

async function connect(
  source: string,
  options: { settings?: Record<string, unknown>; upstreamAuth?: string[] } = {},
): Promise<InProcess & { audit: string; log: string[] }> {
  const audit = join(temp.dir, `audit-${++files}.jsonl`);
  const config = join(temp.dir, `settings-${files}.json`);
  writeFileSync(config, JSON.stringify({ auditLog: audit, ...options.settings }));
  const log: string[] = [];
  const { engine } = await setUpEngine(source, {
    config,
    env: {},
    cache: false,
    log: (line) => log.push(line),
    ...(options.upstreamAuth ? { upstreamAuth: options.upstreamAuth } : {}),
  });
  const connected = await connectProvider(engine);
  open.push(connected);
  return { ...connected, audit, log };
}

const whoami = async (c: InProcess): Promise<Result> =>
  (await c.client.callTool({ name: "whoami", arguments: {} })) as Result;
const sent = (): Array<string | undefined> => api.to("/echo").map((r) => r.headers.authorization);

describe("${file:PATH}", () => {
  it("sends the file's content without its trailing newline; every form of it is masked; the audit names the file", async () => {
    const file = secretFile(`${CANARY}\n`);
    api.on("GET", "/echo", echo({ as: "text" }));
    const c = await connect(definition({ auth: { type: "bearer", token: `\${file:${file}}` } }));
    const result = await whoami(c);
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(sent()).toEqual([`Bearer ${CANARY}`]);
    expect(leaksIn(JSON.stringify(result), forbiddenForms())).toEqual([]);
    const audit = readFileSync(c.audit, "utf8");
    expect(leaksIn(audit, forbiddenForms())).toEqual([]);
    expect(JSON.parse(audit.trim())).toMatchObject({ tool: "whoami", outcome: "ok", secrets: [`file:${file}`] });
  });

  it("a rotated file (renamed over, rewritten in place) is used by the next call, without a restart", async () => {
    const file = secretFile("first-value-1111");
    api.on("GET", "/echo", echo());
    const c = await connect(definition({ auth: { type: "bearer", token: `\${file:${file}}` } }));
    await whoami(c);
    const next = secretFile("second-value-2222");
    renameSync(next, file);
    await whoami(c);
    writeFileSync(file, "third-value-3333\n");
    await whoami(c);
    expect(sent()).toEqual(["Bearer first-value-1111", "Bearer second-value-2222", "Bearer third-value-3333"]);
  });

  it("calls racing in-place rewrites of the file each send one whole value, never half of one", async () => {
    // Long values, each a different letter throughout: half of one would show as a short or mixed token.
    const value = (i: number): string => String.fromCharCode(97 + (i % 26)).repeat(16_000);
    const file = secretFile(value(0));
    api.on("GET", "/echo", echo({ ok: true }));
    const c = await connect(
      definition({ auth: { type: "apiKey", in: "header", name: "X-Key", value: `\${file:${file}}` } }),
    );
    let writing = true;
    const writer = (async () => {
      for (let i = 1; writing; i++) {
        writeFileSync(file, value(i));
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const results: Result[] = [];
    for (let round = 0; round < 6; round++)
      results.push(...(await Promise.all(Array.from({ length: 10 }, () => whoami(c)))));
    writing = false;
    await writer;
    for (const result of results) expect(result.isError ?? false, textOf(result)).toBe(false);
    const keys = api.to("/echo").map((r) => String(r.headers["x-key"]));
    expect(keys).toHaveLength(60);
    for (const key of keys) expect(key).toMatch(/^([a-z])\1{15999}$/);
    // The file did change under the calls.
    expect(new Set(keys).size).toBeGreaterThan(1);
  });

  it("follows a Kubernetes-style symlink swap (..data renamed over), and checks the target's mode", async () => {
    const volume = join(temp.dir, "volume");
    const version = (name: string, content: string): void => {
      mkdirSync(join(volume, name), { recursive: true });
      writeFileSync(join(volume, name, "token"), content, { mode: 0o600 });
    };
    version("..2026_01", "k8s-token-aaaa");
    symlinkSync("..2026_01", join(volume, "..data"));
    symlinkSync("..data/token", join(volume, "token"));
    api.on("GET", "/echo", echo());
    const c = await connect(definition({ auth: { type: "bearer", token: `\${file:${join(volume, "token")}}` } }));
    await whoami(c);
    version("..2026_02", "k8s-token-bbbb");
    symlinkSync("..2026_02", join(volume, "..data_tmp"));
    renameSync(join(volume, "..data_tmp"), join(volume, "..data"));
    await whoami(c);
    expect(sent()).toEqual(["Bearer k8s-token-aaaa", "Bearer k8s-token-bbbb"]);
    // A projected volume's 0644 files, through the symlinks, are refused...
    chmodSync(join(volume, "..2026_02", "token"), 0o644);
    const result = await whoami(c);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`secret file:${join(volume, "token")}: the file is readable by anyone (mode 644)`);
    expect(api.to("/echo")).toHaveLength(2);
  });

  it("refuses at start a file others may read, or one that is not there, naming the file, the scheme and the switch", async () => {
    const readable = secretFile(CANARY, 0o644);
    const source = definition({ auth: { type: "bearer", token: `\${file:${readable}}` } });
    const refused = await rejection(connect(source));
    expect(refused.message).toContain(
      `security scheme 'files' (token): secret file:${readable}: the file is readable by anyone (mode 644)`,
    );
    expect(refused.message).toContain("--allow-readable-secret-files");
    expect(refused.message).not.toContain(CANARY);
    const missing = await rejection(
      connect(definition({ auth: { type: "bearer", token: "${file:/nonexistent/token}" } })),
    );
    expect(missing.message).toContain("secret file:/nonexistent/token: no such file");
    // Allowed in the settings file, it is used.
    api.on("GET", "/echo", echo());
    const c = await connect(source, { settings: { allowReadableSecretFiles: true } });
    expect((await whoami(c)).isError ?? false).toBe(false);
    expect(sent()).toEqual([`Bearer ${CANARY}`]);
  });

  it("masks an earlier value a response still shows after the file rotated", async () => {
    const file = secretFile("old-value-5a5a5a");
    let calls = 0;
    // The API echoes the value the first call sent in every response.
    api.on("GET", "/echo", ({ res }) => {
      calls++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ seen: "old-value-5a5a5a" }));
    });
    const c = await connect(definition({ auth: { type: "bearer", token: `\${file:${file}}` } }));
    await whoami(c);
    writeFileSync(file, "new-value-6b6b6b");
    const result = await whoami(c);
    expect(calls).toBe(2);
    expect(sent().at(-1)).toBe("Bearer new-value-6b6b6b");
    expect(textOf(result)).not.toContain("old-value-5a5a5a");
  });

  it("reaches static headers, settings credentials and --auth bearer:file:PATH", async () => {
    const header = secretFile("header-secret-7c7c");
    const token = secretFile(`${CANARY}\n`);
    api.on("GET", "/echo", echo());
    const source = definition({
      auth: { type: "bearer", token: "${FILES_TOKEN}" },
      headers: { "X-Tenant": `t-\${file:${header}}` },
    });
    const fromSettings = await connect(source, { settings: { credentials: { files: `\${file:${token}}` } } });
    await whoami(fromSettings);
    const fromOption = await connect(source, { upstreamAuth: [`bearer:file:${token}`] });
    await whoami(fromOption);
    expect(sent()).toEqual([`Bearer ${CANARY}`, `Bearer ${CANARY}`]);
    expect(api.to("/echo").map((r) => r.headers["x-tenant"])).toEqual(["t-header-secret-7c7c", "t-header-secret-7c7c"]);
    const line = JSON.parse(readFileSync(fromSettings.audit, "utf8").trim()) as { secrets: string[] };
    expect(line.secrets.sort()).toEqual([`file:${header}`, `file:${token}`].sort());
  });
});
