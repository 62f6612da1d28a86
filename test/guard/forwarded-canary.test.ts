// The canary, forwarded: each caller's own upstream credential arrives in a request header (an API key in a header
// and in the query, a bearer token) and goes upstream as the scheme says; the API echoes the request back (as JSON,
// as text, keyed by value, in 401 and 500 answers, in a body that fails its output schema). The canary, in every
// form it takes, must appear nowhere a model or an operator reads: tool results, server logs, audit lines.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { serve } from "../../src/app/serve.js";
import {
  CANARY,
  echo,
  forbiddenForms,
  guardSpec,
  leaksIn,
  decodedBlobs,
  tempDir,
  writeFile,
} from "../support/guard.js";
import { Upstream } from "../support/upstream.js";

const MCP_TOKEN = "forwarded-canary-mcp-token-0123456789";
const FORWARDED = ["header", "query", "bearer"] as const;
const SCENARIOS = {
  ok: echo(),
  text: echo({ as: "text" }),
  keyed: echo({ as: "keyed" }),
  e401: echo({ status: 401 }),
  e500: echo({ status: 500, as: "text" }),
  mismatch: echo({ ok: "no" }),
};

let api: Upstream;
const temp = tempDir();

beforeAll(async () => {
  api = await Upstream.start();
  for (const [name, reply] of Object.entries(SCENARIOS)) api.on("GET", new RegExp(`^/v1/\\w+/${name}$`), reply);
});
afterAll(async () => {
  await api.close();
  temp.remove();
});
afterEach(() => vi.unstubAllEnvs());

describe("a forwarded credential", () => {
  it("reaches the API as the scheme says, and shows nowhere else", async () => {
    vi.stubEnv("MCP_CALLER_TOKENS", MCP_TOKEN);
    const spec = writeFile(
      temp.dir,
      "guard.json",
      guardSpec({ serverUrl: `${api.url}/v1`, tokenUrl: `${api.url}/token` }),
    );
    const audit = `${temp.dir}/audit.jsonl`;
    const config = writeFile(temp.dir, "settings.json", {
      auditLog: audit,
      credentials: {
        headerKey: { perUser: { forwarded: { header: "X-Upstream-Key" } } },
        queryKey: { perUser: { forwarded: { header: "X-Upstream-Query-Key" } } },
        bearerAuth: { perUser: { forwarded: { header: "X-Upstream-Authorization" } } },
      },
    });
    const logs: string[] = [];
    const running = await serve(spec, {
      transport: "http",
      port: 0,
      config,
      auth: { type: "static", tokenEnv: "MCP_CALLER_TOKENS" },
      log: (line) => logs.push(line),
      cache: false,
    });
    onTestFinished(() => running.close());
    const client = new Client({ name: "canary", version: "0.0.0" });
    const headers = {
      authorization: `Bearer ${MCP_TOKEN}`,
      "x-upstream-key": CANARY,
      "x-upstream-query-key": CANARY,
      "x-upstream-authorization": `Bearer ${CANARY}`,
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url!), { requestInit: { headers } }));
    onTestFinished(() => client.close());

    const shown: Array<{ what: string; text: string }> = [];
    for (const kind of FORWARDED) {
      for (const scenario of Object.keys(SCENARIOS)) {
        const result = await client
          .callTool({ name: `get_${kind}`, arguments: { scenario } })
          .catch((e: unknown) => ({ content: [{ type: "text", text: String(e) }] }));
        shown.push({ what: `get_${kind} ${scenario}`, text: `${JSON.stringify(result)}\n${decodedBlobs(result)}` });
      }
    }
    // It did go out, where each scheme says: so a clean result is masking, not absence.
    const sent = api.requests.filter((r) => r.path.endsWith("/ok"));
    expect(sent.map((r) => [r.headers["x-api-key"], r.headers.authorization, r.query.includes("api_key=")])).toEqual([
      [CANARY, undefined, false],
      [undefined, undefined, true],
      [undefined, `Bearer ${CANARY}`, false],
    ]);
    expect(JSON.stringify(api.requests.map((r) => r.headers))).not.toContain(MCP_TOKEN);
    shown.push({ what: "logs", text: logs.join("\n") }, { what: "audit", text: readFileSync(audit, "utf8") });
    const forms = [...forbiddenForms(), MCP_TOKEN];
    const leaks = Object.fromEntries(
      shown.flatMap(({ what, text }) => (leaksIn(text, forms).length > 0 ? [[what, leaksIn(text, forms)]] : [])),
    );
    expect(leaks).toEqual({});
  });
});
