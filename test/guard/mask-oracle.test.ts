// Masking at a cut is no oracle (issue 24, finding 1). A caller who knows nothing of an upstream key places a guess
// where the server cuts what it shows: the URL in an error result (2,000 characters), a body at
// --max-response-bytes (as bytes, and as UTF-16 text), inside a code-mode script that loops over guesses, and from
// a profile whose only tools send no credentials at all. Each guess is a piece of a form of the key (either case,
// hex, base64 at each alignment, percent-, JSON- and HTML-escaped) of every length from 1, with the cut just before,
// at and just after its end; each is sent again as the same piece of a wrong key. The answers, the guess itself
// written as x's, must be byte-identical: nothing in them depends on whether the guess is right. Before the fix a
// piece of 4+ characters that began a form vanished at the cut (576–3,829 calls recovered a whole key), and every
// call masked every `${file:}` value any tool had used, so another profile's key could be tested too.

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CodeProvider } from "../../src/runtime/modes/code-mode.js";
import type { Catalog } from "../../src/catalog/types.js";
import type { Engine } from "../../src/runtime/engine.js";
import { serve } from "../../src/app/serve.js";
import { setUpEngine } from "../../src/app/setup.js";
import { connectProvider, type InProcess, tempDir, textOf } from "../support/guard.js";
import { blind, CLOSE, keyForms, OPEN, pieceLengths, wrongKey } from "../support/guesses.js";
import { Upstream } from "../support/upstream.js";

/** Random-looking, 16 characters, without `c`, `z`, `Z` or `9` (so the wrong key's forms are as long: guesses.ts). */
const KEY = "q7GxK2mWp8VbT4wL";
const WRONG = wrongKey(KEY);
const RIGHT_FORMS = keyForms(KEY);
const WRONG_FORMS = keyForms(WRONG);
/** Each form of the key but its last character: the longest piece tried. */
const LESS_LAST = keyForms(KEY.slice(0, -1));
const SHOWN_URL_CHARS = 2_000;
const LIMIT = 2_048;
/** Where the cut falls against the end of the guess: inside it, at its end, one character past it. */
const ALIGNMENTS = [-1, 0, 1];

/** An action GET /<prefix>/<name> taking `q` and `charset`. */
const action = (name: string, prefix: string) => ({
  name,
  description: `${name} at ${prefix}.`,
  method: "GET",
  path: `/${prefix}/${name}`,
  inputSchema: { type: "object", properties: { q: { type: "string" }, charset: { type: "string" } } },
});

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
let manifest: string;
let engine: Engine;
let catalog: Catalog;
let direct: InProcess;

beforeAll(async () => {
  api = await Upstream.start();
  temp = tempDir("openapi-mcp-mask-oracle-");
  const keyFile = join(temp.dir, "api-key");
  writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  api.on("GET", /^\/[ko]\/lookup/, ({ res }) => {
    res.writeHead(404, { "content-type": "text/plain" }).end();
  });
  api.on("GET", /^\/[ko]\/echo/, ({ res, recorded }) => {
    const query = new URLSearchParams(recorded.query);
    const charset = query.get("charset") === "utf-16le" ? "utf-16le" : "utf-8";
    const body = Buffer.from(query.get("q") ?? "", charset === "utf-8" ? "utf8" : "utf16le");
    res.writeHead(200, { "content-type": `text/plain; charset=${charset}` }).end(body);
  });
  // An API that writes back the key it got escaped four times over: past the three layers masking undoes.
  api.on("GET", /^\/k\/reflect/, ({ res, recorded }) => {
    let value = String(recorded.headers["x-api-key"]);
    for (let i = 0; i < 4; i++) value = [...Buffer.from(value)].map((b) => `%${b.toString(16)}`).join("");
    res.writeHead(200, { "content-type": "text/plain" }).end(value);
  });
  const keyed = join(temp.dir, "keyed.actions.json");
  writeFileSync(
    keyed,
    JSON.stringify({
      name: "keyed",
      baseUrl: api.url,
      auth: { type: "apiKey", in: "header", name: "X-Api-Key", value: `\${file:${keyFile}}` },
      actions: ["lookup", "echo", "reflect"].map((name) => action(name, "k")),
    }),
  );
  const open = join(temp.dir, "open.actions.json");
  writeFileSync(
    open,
    JSON.stringify({ name: "open", baseUrl: api.url, actions: ["lookup", "echo"].map((name) => action(name, "o")) }),
  );
  manifest = join(temp.dir, "both.manifest.json");
  writeFileSync(
    manifest,
    JSON.stringify({
      sources: [
        { id: "keyed", source: "./keyed.actions.json" },
        { id: "open", source: "./open.actions.json" },
      ],
    }),
  );
  ({ engine, catalog } = await setUpEngine(manifest, {
    env: {},
    cache: false,
    log: () => {},
    maxResponseBytes: LIMIT,
  }));
  direct = await connectProvider(engine);
});

afterAll(async () => {
  await direct?.close();
  await api.close();
  temp.remove();
});

type Call = (tool: string, args: Record<string, string>) => Promise<string>;
const callDirect: Call = async (tool, args) => textOf(await direct.client.callTool({ name: tool, arguments: args }));

/**
 * Every piece of every form, right and wrong, at each alignment (`shape` gives the arguments that put it at the
 * cut), eight calls at a time: the answers whose blinded texts differ.
 */
async function sweep({
  call,
  tool,
  forms = Object.keys(RIGHT_FORMS),
  shape,
}: {
  call: Call;
  tool: string;
  forms?: string[];
  shape: (piece: string, cutAfter: number) => Record<string, string>;
}): Promise<{ compared: number; differing: string[] }> {
  const cases = forms.flatMap((form) =>
    pieceLengths({ form: RIGHT_FORMS[form]!, lessLast: LESS_LAST[form]! }).flatMap((length) =>
      ALIGNMENTS.map((alignment) => ({ form, length, alignment })),
    ),
  );
  const differing: string[] = [];
  for (let i = 0; i < cases.length; i += 4) {
    await Promise.all(
      cases.slice(i, i + 4).map(async ({ form, length, alignment }) => {
        const [right, wrong] = await Promise.all(
          [RIGHT_FORMS, WRONG_FORMS].map((forms) => call(tool, shape(forms[form]!.slice(0, length), alignment))),
        );
        if (blind(right!) !== blind(wrong!))
          differing.push(`${form}, ${length} characters, cut ${alignment}: ${tail(right!)} | ${tail(wrong!)}`);
      }),
    );
  }
  return { compared: cases.length, differing };
}

const tail = (text: string): string => JSON.stringify(text.slice(Math.max(0, text.indexOf(OPEN) - 10)).slice(0, 90));

/** `q` for a lookup whose URL, as sent, is cut `cutAfter` characters past the end of `piece`. */
function atUrlCut({ base, piece, cutAfter }: { base: string; piece: string; cutAfter: number }): string {
  const before = SHOWN_URL_CHARS - cutAfter - base.length - OPEN.length - encodeURIComponent(piece).length;
  return `${"p".repeat(before)}${OPEN}${piece}${CLOSE}${"t".repeat(50)}`;
}

/** `q` for an echo whose body is cut at the limit `cutAfter` characters past the end of `piece`. */
function atBodyCut({ piece, cutAfter, unit }: { piece: string; cutAfter: number; unit: number }): string {
  const before = LIMIT / unit - cutAfter - OPEN.length - piece.length;
  return `${"p".repeat(before)}${OPEN}${piece}${CLOSE}${"t".repeat(LIMIT)}`;
}

describe("a guess at a cut changes nothing in what the caller gets", () => {
  it("in an error result's URL, cut at 2,000 characters", async () => {
    const base = `${api.url}/k/lookup?q=`;
    const { compared, differing } = await sweep({
      call: callDirect,
      tool: "keyed__lookup",
      shape: (piece, cutAfter) => ({ q: atUrlCut({ base, piece, cutAfter }) }),
    });
    // The requests carried the guesses, their URLs longer than what an answer shows.
    const wrongPiece = `${OPEN}${encodeURIComponent(WRONG_FORMS["base64url at alignment 2"]!.slice(0, 5))}${CLOSE}`;
    const sent = api.requests.filter((r) => r.url.startsWith("/k/lookup") && r.url.includes(wrongPiece));
    expect(sent.length).toBeGreaterThan(0);
    expect(`${api.url}${sent[0]!.url}`.indexOf(wrongPiece)).toBeGreaterThan(SHOWN_URL_CHARS - 20);
    expect(compared).toBeGreaterThan(200);
    expect(differing).toEqual([]);
  });

  it("in a body cut at --max-response-bytes, as bytes (UTF-8) and as text (UTF-16)", async () => {
    const found: string[] = [];
    for (const [charset, unit] of [
      ["utf-8", 1],
      ["utf-16le", 2],
    ] as const) {
      const { compared, differing } = await sweep({
        call: callDirect,
        tool: "keyed__echo",
        shape: (piece, cutAfter) => ({ q: atBodyCut({ piece, cutAfter, unit }), charset }),
      });
      expect(compared).toBeGreaterThan(200);
      found.push(...differing.map((line) => `${charset}: ${line}`));
    }
    const sample = await callDirect("keyed__echo", { q: atBodyCut({ piece: KEY.slice(0, 5), cutAfter: 0, unit: 1 }) });
    expect(sample).toContain("[truncated:");
    expect(found).toEqual([]);
  });

  it("in a code-mode script that loops over guesses: every answer it collects is the same", async () => {
    const code = new CodeProvider({ engine, catalog });
    const script = (forms: Record<string, string>) => {
      const base = `${api.url}/k/lookup?q=`;
      const probes = ["hex", "as is", "base64 at alignment 1"].flatMap((form) =>
        [4, 5, 6, 8, 10, 12].map((length) => atUrlCut({ base, piece: forms[form]!.slice(0, length), cutAfter: 0 })),
      );
      return `const seen = [];
        for (const q of ${JSON.stringify(probes)}) {
          try { await api.keyed__lookup({ q }); } catch (error) { seen.push(error.message); }
        }
        return seen;`;
    };
    const run = async (forms: Record<string, string>) =>
      textOf(await code.callTool("execute", { code: script(forms) }));
    const right = await run(RIGHT_FORMS);
    const wrong = await run(WRONG_FORMS);
    expect(right).toContain("404 Not Found");
    expect(right).toContain("keyed__lookup (failed) ×18");
    expect(blind(right)).toBe(blind(wrong));
  });
});

describe("a script's value and logs are masked with what its calls carried", () => {
  it("a key a script decodes from an answer does not come out in its value, its logs or its error", async () => {
    const code = new CodeProvider({ engine, catalog });
    const decode = `let text = await api.keyed__reflect({});
      for (let i = 0; i < 4; i++) text = decodeURIComponent(text);`;
    const returned = textOf(await code.callTool("execute", { code: `${decode} console.log(text); return text;` }));
    const thrown = textOf(await code.callTool("execute", { code: `${decode} throw new Error(text);` }));
    for (const shown of [returned, thrown]) {
      expect(shown.toLowerCase()).not.toContain(KEY.toLowerCase());
      expect(shown).toContain("****");
    }
  });

  it("a script whose calls carried no key shows what it was given, right key or wrong", async () => {
    const code = new CodeProvider({ engine, catalog });
    await callDirect("keyed__echo", { q: "warm" });
    const run = async (key: string) =>
      textOf(await code.callTool("execute", { code: `return await api.open__echo({ q: "${OPEN}${key}${CLOSE}" });` }));
    const right = await run(KEY);
    expect(right).toContain(KEY);
    expect(blind(right)).toBe(blind(await run(WRONG)));
  });
});

describe("another profile's `${file:}` key", () => {
  const TOKENS = { alice: "alice-token-0123456789abcdef0123456789", bob: "bob-token-0123456789abcdef0123456789abc" };

  it("a caller whose profile has only tools without credentials learns nothing of it", async () => {
    const config = join(temp.dir, "profiles.json");
    writeFileSync(
      config,
      JSON.stringify({
        profiles: {
          keyed: { match: { token: "alice" }, include: ["path:/k/*"] },
          open: { match: { token: "bob" }, include: ["path:/o/*"] },
        },
      }),
    );
    vi.stubEnv("MCP_MASK_ORACLE_TOKENS", `alice=${TOKENS.alice}, bob=${TOKENS.bob}`);
    const running = await serve(manifest, {
      transport: "http",
      port: 0,
      env: {},
      log: () => {},
      config,
      cache: false,
      auth: { type: "static", tokenEnv: "MCP_MASK_ORACLE_TOKENS" },
    });
    const clients: Client[] = [];
    const connect = async (token: string): Promise<Client> => {
      const client = new Client({ name: "oracle", version: "0.0.0" });
      const headers = { authorization: `Bearer ${token}` };
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url!), { requestInit: { headers } }));
      clients.push(client);
      return client;
    };
    try {
      const alice = await connect(TOKENS.alice);
      const bob = await connect(TOKENS.bob);
      // Alice's call reads the key, so the server has it at hand from now on.
      expect(textOf(await alice.callTool({ name: "keyed__echo", arguments: { q: "hello" } }))).toContain("hello");
      expect((await bob.listTools()).tools.map((t) => t.name).sort()).toEqual(["open__echo", "open__lookup"]);
      const call: Call = async (tool, args) => textOf(await bob.callTool({ name: tool, arguments: args }));
      // The whole key, sent by bob and echoed back: his call carried no key, so nothing is masked.
      const whole = await call("open__echo", { q: `${OPEN}${KEY}${CLOSE}` });
      expect(whole).toContain(KEY);
      expect(blind(whole)).toBe(blind(await call("open__echo", { q: `${OPEN}${WRONG}${CLOSE}` })));
      const base = `${api.url}/o/lookup?q=`;
      const { compared, differing } = await sweep({
        call,
        tool: "open__lookup",
        forms: ["hex", "as is", "percent-escaped"],
        shape: (piece, cutAfter) => ({ q: atUrlCut({ base, piece, cutAfter }) }),
      });
      expect(compared).toBeGreaterThan(50);
      expect(differing).toEqual([]);
    } finally {
      for (const client of clients) await client.close();
      await running.close();
      vi.unstubAllEnvs();
    }
  });
});

describe("text cut with nothing after it", () => {
  it("a token endpoint's answer cut at its 64 KiB bound is not read: no piece of an echoed client secret shows", async () => {
    const clientSecret = "Zq8Nf3Lr7Kx2Wp5T";
    // Form-encoded, as older servers answer, 64 KiB of padding and the secret echoed across the bound.
    const head = "&error=invalid_client&error_description=";
    api.on("POST", "/token", ({ res }) => {
      const body = `pad=${"p".repeat(64 * 1024 - "pad=".length - head.length - 8)}${head}${clientSecret}&x=1`;
      res.writeHead(400, { "content-type": "application/x-www-form-urlencoded" }).end(body);
    });
    const definition = join(temp.dir, "oauth.actions.json");
    writeFileSync(
      definition,
      JSON.stringify({
        name: "oauth",
        baseUrl: api.url,
        auth: {
          type: "oauth2",
          tokenUrl: `${api.url}/token`,
          clientId: "client-1",
          clientSecret: "${OAUTH_CLIENT_SECRET}",
        },
        actions: [action("echo", "k")],
      }),
    );
    const setup = await setUpEngine(definition, {
      env: { OAUTH_CLIENT_SECRET: clientSecret },
      cache: false,
      log: () => {},
    });
    const client = await connectProvider(setup.engine);
    try {
      const text = textOf(await client.client.callTool({ name: "echo", arguments: { q: "x" } }));
      expect(text).toContain("HTTP 400");
      expect(text).not.toContain(clientSecret.slice(0, 4));
    } finally {
      await client.close();
    }
  });
});
