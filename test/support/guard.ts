// Shared by the guard-rail tests (test/guard): one canary secret and every form it can take, a leak finder, an API
// whose operations use each kind of credential and echo the request back, a loopback OAuth token endpoint, and
// clients connected to the real engine in process (InMemoryTransport) or to the built CLI over stdio.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type ClientCapabilities, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolProvider } from "../../src/runtime/types.js";
import { createMcpServer } from "../../src/server/mcp.js";
import { testCacheHome } from "./cache-env.js";
import { CLI } from "./cli.js";
import type { Reply } from "./upstream.js";

// ------------------------------------------------------------------------------------------------ the canary

/**
 * The one secret value used for every credential. `+`, `/` and `=` make its percent-encoded form differ from it, so
 * a leak of either form is told apart.
 */
export const CANARY = "canary-7f3a9d2b+SECRET/=x";
export const CLIENT_ID = "guard-client";
export const BASIC_USER = "alice";

/** application/x-www-form-urlencoded, as an OAuth client sends its id and secret. */
export function formEncode(text: string): string {
  return new URLSearchParams([["", text]]).toString().slice(1);
}

const b64 = (text: string): string => Buffer.from(text).toString("base64");
const b64url = (text: string): string => Buffer.from(text).toString("base64url");

/**
 * Every form the canary (and any access token issued for it) can take on the wire or in a message: as is,
 * percent-encoded, form-encoded, base64 and base64url, and the base64 of the pairs HTTP basic sends (`alice:<canary>`
 * to the API, `<client id>:<secret>` to the token endpoint).
 */
export function forbiddenForms(tokens: readonly string[] = []): string[] {
  const forms = new Set<string>();
  for (const value of [CANARY, ...tokens]) {
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(formEncode(value));
    forms.add(b64(value));
    forms.add(b64url(value));
  }
  for (const pair of [`${BASIC_USER}:${CANARY}`, `${CLIENT_ID}:${CANARY}`, `${CLIENT_ID}:${formEncode(CANARY)}`]) {
    forms.add(b64(pair));
    forms.add(b64url(pair));
  }
  return [...forms];
}

/** The forbidden forms found in `text` (none: no leak). */
export function leaksIn(text: string, forms: readonly string[]): string[] {
  return forms.filter((form) => text.includes(form));
}

/**
 * The decoded bytes of every base64 `data`/`blob` field of a value (image and resource content of a tool result):
 * a model reads those as easily as text.
 */
export function decodedBlobs(value: unknown): string {
  const parts: string[] = [];
  const walk = (item: unknown): void => {
    if (Array.isArray(item)) item.forEach(walk);
    else if (item !== null && typeof item === "object") {
      for (const [key, inner] of Object.entries(item)) {
        if ((key === "data" || key === "blob") && typeof inner === "string")
          parts.push(Buffer.from(inner, "base64").toString("latin1"));
        else walk(inner);
      }
    }
  };
  walk(value);
  return parts.join("\n");
}

/** The environment that gives every credential of the guard API the canary. */
export function canaryEnv(): Record<string, string> {
  return {
    API_KEY_HEADERKEY: CANARY,
    API_KEY_QUERYKEY: CANARY,
    BEARER_TOKEN_BEARERAUTH: CANARY,
    BASIC_USERNAME_BASICAUTH: BASIC_USER,
    BASIC_PASSWORD_BASICAUTH: CANARY,
    OAUTH_CLIENT_ID_OAUTH: CLIENT_ID,
    OAUTH_CLIENT_SECRET_OAUTH: CANARY,
  };
}

// ------------------------------------------------------------------------------------------------ the guard API

export const KINDS = ["header", "query", "bearer", "basic", "oauth"] as const;
export type Kind = (typeof KINDS)[number];

const SCHEME_OF: Record<Kind, string> = {
  header: "headerKey",
  query: "queryKey",
  bearer: "bearerAuth",
  basic: "basicAuth",
  oauth: "oauth",
};

const OK_SCHEMA = { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } };

/**
 * An OpenAPI 3.0 document: for each credential kind, `get_<kind>` (GET /<kind>/{scenario}, output checked) and
 * `delete_<kind>` (DELETE, approval by default); plus tools without credentials for the attack and audit tests.
 */
export function guardSpec({ serverUrl, tokenUrl }: { serverUrl: string; tokenUrl: string }): Record<string, unknown> {
  const scenario = { name: "scenario", in: "path", required: true, schema: { type: "string" } };
  const paths: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const security = [{ [SCHEME_OF[kind]]: [] }];
    paths[`/${kind}/{scenario}`] = {
      get: {
        operationId: `get_${kind}`,
        summary: `A call with the ${kind} credential`,
        security,
        parameters: [scenario],
        responses: { "200": { description: "ok", content: { "application/json": { schema: OK_SCHEMA } } } },
      },
      delete: {
        operationId: `delete_${kind}`,
        summary: `A destructive call with the ${kind} credential`,
        security,
        parameters: [scenario],
        responses: { "200": { description: "deleted", content: { "*/*": {} } } },
      },
    };
  }
  paths["/anything/{name}"] = {
    get: {
      operationId: "getAnything",
      summary: "Arguments in every location",
      security: [{ headerKey: [] }],
      parameters: [
        { name: "name", in: "path", required: true, schema: { type: "string" } },
        { name: "q", in: "query", schema: { type: "string" } },
        { name: "X-Trace", in: "header", schema: { type: "string" } },
        { name: "pref", in: "cookie", schema: { type: "string" } },
      ],
      responses: { "200": { description: "anything", content: { "*/*": {} } } },
    },
    post: {
      operationId: "postAnything",
      summary: "A body",
      security: [{ headerKey: [] }],
      parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
      requestBody: {
        required: false,
        content: { "application/json": { schema: { type: "object", additionalProperties: true } } },
      },
      responses: { "200": { description: "anything", content: { "*/*": {} } } },
    },
  };
  paths["/lookup"] = {
    get: {
      operationId: "lookup",
      summary: "A lookup with a sensitive-looking argument",
      security: [{ queryKey: [] }],
      parameters: [
        { name: "q", in: "query", schema: { type: "string" } },
        { name: "session_token", in: "query", schema: { type: "string" } },
        { name: "limit", in: "query", schema: { type: "integer", minimum: 1 } },
      ],
      responses: { "200": { description: "found", content: { "application/json": { schema: OK_SCHEMA } } } },
    },
  };
  return {
    openapi: "3.0.3",
    info: { title: "Guard API", version: "1.0.0" },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        headerKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        queryKey: { type: "apiKey", in: "query", name: "api_key" },
        bearerAuth: { type: "http", scheme: "bearer" },
        basicAuth: { type: "http", scheme: "basic" },
        oauth: {
          type: "oauth2",
          flows: { clientCredentials: { tokenUrl, scopes: { "pets:read": "read", "pets:write": "write" } } },
        },
      },
    },
  };
}

/** A temporary directory, removed by the returned function. */
export function tempDir(prefix = "openapi-mcp-guard-"): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `value` as JSON (or text as is) to `<dir>/<name>` and returns the path. */
export function writeFile(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

// ------------------------------------------------------------------------------------------------ upstream replies

/** What the upstream saw, as an echoing API would send it back (headers as an object, the raw URL, the body). */
export function seen({ recorded }: Parameters<Reply>[0]): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < recorded.rawHeaders.length; i += 2)
    headers[recorded.rawHeaders[i]!] = recorded.rawHeaders[i + 1]!;
  return { method: recorded.method, url: recorded.url, headers, body: recorded.body.toString("utf8") };
}

/** The request echoed back: JSON (`{ ok, seen }`), or the raw request as text or bytes. */
export function echo({
  status = 200,
  as = "json",
  ok = true,
}: {
  status?: number;
  as?: "json" | "text" | "binary" | "keyed";
  ok?: unknown;
} = {}): Reply {
  return (context) => {
    const { res, recorded } = context;
    const raw = `${recorded.method} ${recorded.url}\r\n${recorded.rawHeaders.map((h, i) => (i % 2 === 0 ? `${h}: ` : `${h}\r\n`)).join("")}\r\n${recorded.body.toString("utf8")}`;
    let body: string | Buffer;
    let type: string;
    if (as === "json") {
      body = JSON.stringify({ ok, seen: seen(context) });
      type = "application/json";
    } else if (as === "keyed") {
      // An API that lists credentials keyed by their value (as some key-management APIs do).
      const values = Object.fromEntries(
        Object.entries(seen(context).headers as Record<string, string>).map(([name, value]) => [value, name]),
      );
      body = JSON.stringify({ ok, byValue: values, [recorded.url]: "url" });
      type = "application/json";
    } else if (as === "text") {
      body = raw;
      type = "text/plain; charset=utf-8";
    } else {
      body = Buffer.from(raw);
      type = "application/octet-stream";
    }
    res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
}

// ------------------------------------------------------------------------------------------------ token endpoint

export interface TokenEndpoint {
  /** The token URL. */
  url: string;
  /** Access tokens issued, in order. */
  issued: string[];
  /** The token requests received, in order. */
  requests: Array<{ authorization: string | undefined; body: string }>;
}

/**
 * A client-credentials token endpoint on an Upstream: checks the client's id and secret (HTTP basic, or in the
 * form), issues a fresh token each time, optionally after a delay. A wrong client gets 401 with an error body that
 * echoes what it was sent.
 */
export function tokenEndpoint(
  upstream: { url: string; on: (method: string, path: string, ...replies: Reply[]) => unknown },
  {
    path = "/oauth/token",
    delayMs = 0,
    expiresIn = 3600,
  }: { path?: string; delayMs?: number; expiresIn?: number } = {},
): TokenEndpoint {
  const endpoint: TokenEndpoint = { url: `${upstream.url}${path}`, issued: [], requests: [] };
  upstream.on("POST", path, ({ res, recorded }) => {
    const authorization = recorded.headers.authorization;
    const body = recorded.body.toString("utf8");
    endpoint.requests.push({ authorization, body });
    const form = new URLSearchParams(body);
    const fromBasic = authorization?.startsWith("Basic ")
      ? Buffer.from(authorization.slice(6), "base64").toString("utf8")
      : undefined;
    const good =
      fromBasic === `${CLIENT_ID}:${formEncode(CANARY)}` ||
      (form.get("client_id") === CLIENT_ID && form.get("client_secret") === CANARY);
    const answer = (): void => {
      if (!good || form.get("grant_type") !== "client_credentials") {
        const text = JSON.stringify({
          error: "invalid_client",
          error_description: `bad client: ${authorization ?? ""} ${body}`,
        });
        res.writeHead(401, { "content-type": "application/json" }).end(text);
        return;
      }
      const token = `tok-${endpoint.issued.length + 1}-${Math.random().toString(16).slice(2, 10)}-ACCESS`;
      endpoint.issued.push(token);
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: expiresIn }));
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  return endpoint;
}

// ------------------------------------------------------------------------------------------------ clients

export type Elicit = (message: string, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>;

export interface InProcess {
  client: Client;
  /** Every elicitation message the client was shown. */
  asked: string[];
  close(): Promise<void>;
}

/**
 * The SDK's real Client connected in process to an MCP server in front of `provider`. With `elicit`, the client
 * declares form elicitation and answers each question with it; without, it cannot be asked.
 */
export async function connectProvider(
  provider: ToolProvider,
  { elicit, log }: { elicit?: Elicit; log?: (line: string) => void } = {},
): Promise<InProcess> {
  const server = createMcpServer({ provider, name: "guard", version: "1.0.0", log: log ?? (() => {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const capabilities: ClientCapabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: "guard-client", version: "0.0.0" }, { capabilities });
  const asked: string[] = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      asked.push(request.params.message);
      return elicit(request.params.message, extra.signal);
    });
  }
  await server.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return {
    client,
    asked,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export const APPROVE: Elicit = () => ({ action: "accept", content: { approve: true } });

export interface StdioServer {
  client: Client;
  asked: string[];
  stderr(): string;
  /** Closes the client (stdin ends) and waits for the process to exit. */
  close(): Promise<void>;
}

/** `node dist/cli.js serve <args>` as a child process, with the SDK client over its stdio. */
export async function serveOverStdio(
  args: string[],
  { env, elicit }: { env: Record<string, string>; elicit?: Elicit },
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", ...args],
    env: { ...testCacheHome(), ...env, NO_COLOR: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const capabilities: ClientCapabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: "guard-stdio", version: "0.0.0" }, { capabilities });
  const asked: string[] = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      asked.push(request.params.message);
      return elicit(request.params.message, extra.signal);
    });
  }
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`serve did not start: ${(error as Error).message}\n${stderr}`);
  }
  return {
    client,
    asked,
    stderr: () => stderr,
    // The SDK's close ends the child's stdin and waits for it to exit (signalling it if it does not).
    close: () => client.close(),
  };
}

/** A child process with its output collected. */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; stdout(): string; stderr(): string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

export async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The text of a result's text blocks, joined. */
export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

// ------------------------------------------------------------------------------------------------ recovering a secret

const HTML_NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  sol: "/",
  plus: "+",
  equals: "=",
  num: "#",
  percnt: "%",
};

/**
 * How someone reading `text` could recover `secret`, or a piece of it of `piece` characters or more: the decodings
 * (by their names) that reveal it. An attacker's toolbox, written independently of the code under test: any case,
 * percent-decoding, JSON and JavaScript escapes, HTML entities, base64 and base64url at every offset, hex.
 */
export function revealed(text: string, secret: string, { piece = secret.length }: { piece?: number } = {}): string[] {
  const pieces = new Set<string>();
  for (let i = 0; i + piece <= secret.length; i++) pieces.add(secret.slice(i, i + piece).toLowerCase());
  const shows = (decoded: string): boolean => {
    const lower = decoded.toLowerCase();
    for (const p of pieces) if (lower.includes(p)) return true;
    return false;
  };
  const percent = (t: string): string =>
    t.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return Buffer.from(run.replace(/%/g, ""), "hex").toString("latin1");
      }
    });
  const json = (t: string): string =>
    t.replace(
      /\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|\\([/\\"'])/gi,
      (_, u?: string, x?: string, c?: string) => c ?? String.fromCharCode(Number.parseInt(u ?? x ?? "0", 16)),
    );
  const html = (t: string): string =>
    t.replace(/&(#x([0-9a-f]+)|#([0-9]+)|([a-z]+));?/gi, (whole, _e, hex?: string, dec?: string, name?: string) => {
      const code = Number.parseInt(hex ?? dec ?? "", hex ? 16 : 10);
      if (hex ?? dec) return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      return HTML_NAMED[(name ?? "").toLowerCase()] ?? whole;
    });
  const base64 = (t: string): string =>
    (t.match(/[A-Za-z0-9+/_-]{6,}/g) ?? [])
      .flatMap((run) => [0, 1, 2, 3].map((o) => Buffer.from(run.slice(o), "base64").toString("latin1")))
      .join("\n");
  const hex = (t: string): string =>
    (t.match(/[0-9a-f]{8,}/gi) ?? [])
      .flatMap((run) => [0, 1].map((o) => Buffer.from(run.slice(o), "hex").toString("latin1")))
      .join("\n");
  const decodings: Record<string, (t: string) => string> = {
    "as is (any case)": (t) => t,
    "percent-decoded": percent,
    "form-decoded": (t) => percent(t.replace(/\+/g, " ")),
    "JSON-unescaped": json,
    "HTML-unescaped": html,
    "twice unescaped": (t) => html(json(percent(percent(html(json(t)))))),
    base64,
    hex,
  };
  return Object.entries(decodings)
    .filter(([, decode]) => shows(decode(text)))
    .map(([name]) => name);
}
