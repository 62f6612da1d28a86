// End to end, in process: the SDK's real Client → createMcpServer → Engine → a real recording upstream on
// 127.0.0.1. Each call's exact wire request (method, raw path and query, headers, body bytes) and the result the
// client received, for every parameter style, body kind, response kind and credential kind of the fixture.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type CallResult,
  type Connected,
  call,
  connectInProcess,
  SECRETS,
  secretForms,
  textOf,
} from "../support/e2e.js";
import { send, sharedDispatcher } from "../../src/runtime/http/client.js";
import { bytes, json, type RecordedRequest, status, text, Upstream } from "../support/upstream.js";

let upstream: Upstream;
let connected: Connected;

beforeAll(async () => {
  upstream = await Upstream.start();
  connected = await connectInProcess({ baseUrl: `${upstream.url}/v1` });
});
afterAll(async () => {
  await connected.close();
  await upstream.close();
});
afterEach(() => upstream.reset());

const COLOR = { R: 100, G: 200, B: 150 };
const COLORS = ["blue", "black", "brown"];
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** Calls a tool whose route answers 204, and returns the one request the upstream saw. */
async function wire(
  name: string,
  args: Record<string, unknown>,
  path: string | RegExp,
  method = "GET",
): Promise<RecordedRequest> {
  upstream.on(method, path, status(204));
  const result = await call(connected.client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  return upstream.only();
}

describe("tools/list", () => {
  it("lists every operation with its schemas and annotations", async () => {
    const { tools } = await connected.client.listTools();
    expect(tools).toHaveLength(connected.catalog.tools.length);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("getObject")!.outputSchema).toMatchObject({ type: "object", required: ["id", "name"] });
    // A JSON array is wrapped: MCP wants an object at the top.
    expect(byName.get("getArray")!.outputSchema).toMatchObject({
      type: "object",
      properties: { result: { type: "array" } },
      required: ["result"],
    });
    expect(byName.get("getText")!.outputSchema).toBeUndefined();
    expect(byName.get("deleteThing")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("getObject")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    // Credentials are never arguments.
    expect(Object.keys(byName.get("withQueryKey")!.inputSchema.properties ?? {})).toEqual(["q"]);
    expect(Object.keys(byName.get("withCookieKey")!.inputSchema.properties ?? {})).toEqual(["theme"]);
  });
});

describe("path parameters", () => {
  it("simple: primitives, arrays and objects, exploded and not", async () => {
    const request = await wire("pathSimple", { prim: "blue", arr: COLORS, obj: COLOR, objx: COLOR }, /^\/v1\/simple\//);
    expect(request.method).toBe("GET");
    expect(request.url).toBe("/v1/simple/blue/blue,black,brown/R,100,G,200,B,150/R=100,G=200,B=150");
  });

  it("label", async () => {
    const request = await wire(
      "pathLabel",
      { prim: "blue", arr: COLORS, arrx: COLORS, obj: COLOR, objx: COLOR },
      /^\/v1\/label\//,
    );
    expect(request.url).toBe(
      "/v1/label/.blue/.blue,black,brown/.blue.black.brown/.R,100,G,200,B,150/.R=100.G=200.B=150",
    );
  });

  it("matrix", async () => {
    const request = await wire(
      "pathMatrix",
      { prim: "blue", arr: COLORS, arrx: COLORS, obj: COLOR, objx: COLOR },
      /^\/v1\/matrix\//,
    );
    expect(request.url).toBe(
      "/v1/matrix/;prim=blue/;arr=blue,black,brown/;arrx=blue;arrx=black;arrx=brown/;obj=R,100,G,200,B,150/;R=100;G=200;B=150",
    );
  });

  it("percent-encodes values so they cannot change the path's shape, the query or the host", async () => {
    const request = await wire(
      "pathSimple",
      { prim: "a/b c?d#e@evil.example", arr: ["../x", "ü"], obj: { "k/": "%2F" }, objx: { q: "?" } },
      /^\/v1\/simple\//,
    );
    expect(request.url).toBe("/v1/simple/a%2Fb%20c%3Fd%23e%40evil.example/..%2Fx,%C3%BC/k%2F,%252F/q=%3F");
    expect(request.query).toBe("");
    expect(request.headers.host).toBe(`127.0.0.1:${upstream.port}`);
  });

  it("integers in the path", async () => {
    const request = await wire("deleteThing", { id: 42 }, "/v1/things/42", "DELETE");
    expect(request.method).toBe("DELETE");
    expect(request.body.length).toBe(0);
  });
});

describe("query parameters", () => {
  it("form style: scalars, arrays and objects, exploded and not, allowReserved, content-serialized JSON", async () => {
    const request = await wire(
      "queryForm",
      {
        prim: "a b&c=d",
        num: 1.5,
        flag: true,
        arr: ["x", "y"],
        arrc: ["x", "y z"],
        obj: { R: 1, G: 2 },
        objc: { R: 1, G: 2 },
        reserved: "a/b?c:d@e&f",
        json: { a: [1, "b"] },
      },
      "/v1/query/form",
    );
    expect(request.query).toBe(
      "prim=a%20b%26c%3Dd&num=1.5&flag=true&arr=x&arr=y&arrc=x,y%20z&R=1&G=2&objc=R,1,G,2&reserved=a/b?c:d@e%26f&json=%7B%22a%22%3A%5B1%2C%22b%22%5D%7D",
    );
  });

  it("leaves out what is not given: no '?' at all", async () => {
    const request = await wire("queryForm", {}, "/v1/query/form");
    expect(request.url).toBe("/v1/query/form");
  });

  it("spaceDelimited and pipeDelimited", async () => {
    const request = await wire(
      "queryDelimited",
      { space: ["a", "b"], pipe: ["a", "b|c"], spaceObj: { R: 1, G: 2 }, pipex: ["a", "b"] },
      "/v1/query/delimited",
    );
    expect(request.query).toBe("space=a%20b&pipe=a%7Cb%7Cc&spaceObj=R%201%20G%202&pipex=a&pipex=b");
  });

  it("deepObject, nested objects one bracket deeper", async () => {
    const request = await wire(
      "queryDeep",
      { filter: { color: "red", size: "L", price: { min: 1, max: 5 } } },
      "/v1/query/deep",
    );
    expect(request.query).toBe(
      "filter%5Bcolor%5D=red&filter%5Bsize%5D=L&filter%5Bprice%5D%5Bmin%5D=1&filter%5Bprice%5D%5Bmax%5D=5",
    );
    // What a server framework decodes it to.
    expect([...new URLSearchParams(request.query)]).toEqual([
      ["filter[color]", "red"],
      ["filter[size]", "L"],
      ["filter[price][min]", "1"],
      ["filter[price][max]", "5"],
    ]);
  });
});

describe("header and cookie parameters", () => {
  it("headers in simple style, not percent-encoded", async () => {
    const request = await wire(
      "headerParams",
      { "X-Prim": "blue sky/%20;q=1", "X-Arr": ["a", "b"], "X-Obj": { R: 1, G: 2 }, "X-Objx": { R: 1, G: 2 } },
      "/v1/headers",
    );
    expect(request.headers["x-prim"]).toBe("blue sky/%20;q=1");
    expect(request.headers["x-arr"]).toBe("a,b");
    expect(request.headers["x-obj"]).toBe("R,1,G,2");
    expect(request.headers["x-objx"]).toBe("R=1,G=2");
  });

  it("names the client in User-Agent (GitHub's API refuses a request without one), unless the request has its own", async () => {
    const request = await wire("headerParams", {}, "/v1/headers");
    expect(request.headers["user-agent"]).toBe("openapi-mcp");
    upstream.on("GET", "/own", status(204));
    const own = { origin: upstream.url, path: "/own", method: "GET", headers: { "User-Agent": "my-agent/2" } };
    await send(own, { dispatcher: sharedDispatcher(), timeoutMs: 5_000, maxResponseBytes: 1_000 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.rawHeaders.filter((h) => h.toLowerCase() === "user-agent")).toHaveLength(1);
    expect(sent.headers["user-agent"]).toBe("my-agent/2");
  });

  it("cookies in form style, in one Cookie header", async () => {
    const request = await wire(
      "cookieParams",
      { prim: "blue;x=1", arr: ["a", "b"], obj: { R: 1, G: 2 } },
      "/v1/cookies",
    );
    expect(request.headers.cookie).toBe("prim=blue%3Bx%3D1; arr=a,b; obj=R,1,G,2");
    expect(request.rawHeaders.filter((h) => h.toLowerCase() === "cookie")).toHaveLength(1);
  });
});

describe("request bodies", () => {
  it("application/json: the exact JSON bytes, with Content-Type, Content-Length and Accept", async () => {
    upstream.on("POST", "/v1/json", json({ id: 7, name: "widget", tags: ["a"] }, { status: 201 }));
    const body = { name: "widget ✓", tags: ["a"], price: 9.5, details: { color: "red", sizes: [1, 2] } };
    const result = await call(connected.client, "jsonBody", { body });
    const request = upstream.only();
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/v1/json");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.accept).toBe("application/json");
    expect(request.body.equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    expect(request.headers["content-length"]).toBe(String(request.body.length));
    expect(result).toEqual({
      content: [{ type: "text", text: '{"id":7,"name":"widget","tags":["a"]}' }],
      structuredContent: { id: 7, name: "widget", tags: ["a"] },
    });
  });

  it("application/x-www-form-urlencoded with per-property encodings", async () => {
    const request = await wire(
      "formBody",
      { body: { name: "a b&c", ids: [1, 2], tags: ["x", "y"], meta: { k: "v" } } },
      "/v1/form",
      "POST",
    );
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.body.toString()).toBe("name=a%20b%26c&ids=1&ids=2&tags=x,y&meta=%7B%22k%22%3A%22v%22%7D");
    expect(Object.fromEntries(new URLSearchParams(request.body.toString()))).toMatchObject({
      name: "a b&c",
      tags: "x,y",
      meta: '{"k":"v"}',
    });
  });

  it("multipart/form-data with a file given as base64, byte for byte", async () => {
    upstream.on("POST", "/v1/upload", json({ stored: true }));
    const file = Buffer.concat([PNG, Buffer.from([0x00, 0xff, 0x0d, 0x0a])]);
    const result = await call(connected.client, "multipartBody", {
      body: {
        description: "héllo",
        count: 3,
        meta: { a: 1 },
        file: { filename: "pic.png", contentType: "image/png", data: file.toString("base64") },
      },
    });
    expect(result.structuredContent).toEqual({ stored: true });
    const request = upstream.only();
    const contentType = request.headers["content-type"] ?? "";
    const boundary = /^multipart\/form-data; boundary=([A-Za-z0-9'()+_,./:=?-]+)$/.exec(contentType)?.[1];
    expect(boundary, contentType).toBeDefined();
    const expected = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="description"\r\n\r\nhéllo\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="count"\r\n\r\n3\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n`,
      ),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="pic.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(request.body.toString("hex")).toBe(expected.toString("hex"));
    // A standard parser reads it back.
    const form = await new Response(request.body, { headers: { "content-type": contentType } }).formData();
    expect(form.get("description")).toBe("héllo");
    const part = form.get("file") as File;
    expect(part.name).toBe("pic.png");
    expect(Buffer.from(await part.arrayBuffer()).equals(file)).toBe(true);
  });

  it("text/plain: UTF-8 bytes with the charset stated; a text answer comes back as text", async () => {
    upstream.on("POST", "/v1/text", text("got it"));
    const result = await call(connected.client, "textBody", { body: "héllo\nworld" });
    const request = upstream.only();
    expect(request.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(request.headers.accept).toBe("text/plain");
    expect(request.body.equals(Buffer.from("héllo\nworld", "utf8"))).toBe(true);
    expect(result).toEqual({ content: [{ type: "text", text: "got it" }] });
  });

  it("application/octet-stream: the base64 argument's bytes exactly", async () => {
    const data = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const request = await wire(
      "binaryBody",
      { name: "report 1.bin", body: data.toString("base64") },
      "/v1/binary/report%201.bin",
      "PUT",
    );
    expect(request.method).toBe("PUT");
    expect(request.headers["content-type"]).toBe("application/octet-stream");
    expect(request.body.equals(data)).toBe(true);
  });
});

describe("responses", () => {
  it("a JSON object: structuredContent and the JSON as text", async () => {
    upstream.on("GET", "/v1/object", json({ id: 1, name: "a", tags: ["x"] }));
    const result = await call(connected.client, "getObject");
    expect(result).toEqual({
      content: [{ type: "text", text: '{"id":1,"name":"a","tags":["x"]}' }],
      structuredContent: { id: 1, name: "a", tags: ["x"] },
    });
    expect(upstream.only().headers.accept).toBe("application/json");
  });

  it("a JSON array: wrapped as {result}", async () => {
    upstream.on(
      "GET",
      "/v1/array",
      json([
        { id: 1, name: "a" },
        { id: 2, name: "b" },
      ]),
    );
    const result = await call(connected.client, "getArray");
    expect(result).toEqual({
      content: [{ type: "text", text: '[{"id":1,"name":"a"},{"id":2,"name":"b"}]' }],
      structuredContent: {
        result: [
          { id: 1, name: "a" },
          { id: 2, name: "b" },
        ],
      },
    });
  });

  it("text: as text, decoded by its charset", async () => {
    upstream.on("GET", "/v1/plain", bytes(Buffer.from([0x63, 0x61, 0x66, 0xe9]), "text/plain; charset=ISO-8859-1"));
    const result = await call(connected.client, "getText");
    expect(result).toEqual({ content: [{ type: "text", text: "café" }] });
  });

  it("image/png: image content", async () => {
    upstream.on("GET", "/v1/image", bytes(PNG, "image/png"));
    const result = await call(connected.client, "getImage");
    expect(result).toEqual({ content: [{ type: "image", data: PNG.toString("base64"), mimeType: "image/png" }] });
  });

  it("application/pdf: an embedded resource with the bytes", async () => {
    const pdf = Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n%%EOF\n", "latin1");
    upstream.on("GET", "/v1/pdf", bytes(pdf, "application/pdf"));
    const result = await call(connected.client, "getPdf");
    expect(result).toEqual({
      content: [
        {
          type: "resource",
          resource: { uri: `${upstream.url}/v1/pdf`, mimeType: "application/pdf", blob: pdf.toString("base64") },
        },
      ],
    });
  });

  it("204: a short success text", async () => {
    upstream.on("DELETE", "/v1/things/9", status(204));
    const result: CallResult = await call(connected.client, "deleteThing", { id: 9 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^204 No Content: the request succeeded; there is no content\.$/);
  });
});

describe("credentials from the environment", () => {
  it("an API key in a header", async () => {
    const request = await wire("withHeaderKey", {}, "/v1/secure/header");
    expect(request.headers["x-api-key"]).toBe(SECRETS.API_KEY_HEADERKEY);
  });

  it("an API key in the query, percent-encoded, after the arguments", async () => {
    const request = await wire("withQueryKey", { q: "x y" }, "/v1/secure/query");
    expect(request.query).toBe("q=x%20y&api_key=qk%2Fsecret%3D9a7c");
  });

  it("an API key in a cookie, beside cookie arguments", async () => {
    const request = await wire("withCookieKey", { theme: "dark" }, "/v1/secure/cookie");
    expect(request.headers.cookie).toBe(`theme=dark; session=${SECRETS.API_KEY_COOKIEKEY}`);
  });

  it("bearer: the first alternative that is configured", async () => {
    const request = await wire("withBearerOrBasic", {}, "/v1/secure/either");
    expect(request.headers.authorization).toBe(`Bearer ${SECRETS.BEARER_TOKEN_BEARERAUTH}`);
  });

  it("basic, when the bearer token is not configured", async () => {
    const { BEARER_TOKEN_BEARERAUTH: _unset, ...env } = SECRETS;
    const other = await connectInProcess({ baseUrl: `${upstream.url}/v1`, engine: { env } });
    try {
      upstream.on("GET", "/v1/secure/either", status(204));
      await call(other.client, "withBearerOrBasic");
      const expected = Buffer.from(`${SECRETS.BASIC_USERNAME_BASICAUTH}:${SECRETS.BASIC_PASSWORD_BASICAUTH}`).toString(
        "base64",
      );
      expect(upstream.only().headers.authorization).toBe(`Basic ${expected}`);
    } finally {
      await other.close();
    }
  });

  it("two schemes required together: both applied", async () => {
    const request = await wire("withKeyPair", {}, "/v1/secure/both");
    expect(request.headers["x-api-key"]).toBe(SECRETS.API_KEY_HEADERKEY);
    expect(request.query).toBe("api_key=qk%2Fsecret%3D9a7c");
  });

  it("a tool without security sends no credentials", async () => {
    upstream.on("GET", "/v1/items/1", json({ id: 1, name: "a" }));
    await call(connected.client, "getItem", { id: 1 });
    const request = upstream.only();
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers["x-api-key"]).toBeUndefined();
    expect(request.headers.cookie).toBeUndefined();
    expect(request.query).toBe("");
  });

  it("never shows a credential in a result: not in an error about a failed call, nor in a resource URI", async () => {
    // The URL a request went to holds a query API key once credentials are applied: neither messages nor resource
    // URIs may show it.
    upstream.on(
      "GET",
      "/v1/secure/query",
      json({ error: "boom" }, { status: 500 }),
      bytes("%PDF-1.4\n", "application/pdf"),
    );
    const failed = await call(connected.client, "withQueryKey", { q: "a" });
    expect(failed.isError).toBe(true);
    const succeeded = await call(connected.client, "withQueryKey", { q: "a" });
    expect(succeeded.isError).toBeFalsy();
    const shown = JSON.stringify([failed, succeeded]);
    for (const secret of secretForms()) expect(shown, `a result shows ${secret}`).not.toContain(secret);
  });
});
