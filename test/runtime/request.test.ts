// Whole requests from a tool call's arguments: path, query, headers, cookies and body in place; the base URL;
// and the guarantees that no argument changes the host or the path's shape, or injects a header line.

import { describe, expect, it } from "vitest";
import { OpenApiMcpError } from "../../src/catalog/errors.js";
import type { Operation, ParameterBinding } from "../../src/catalog/types.js";
import { buildRequest } from "../../src/runtime/http/request.js";
import { ArgumentError } from "../../src/runtime/types.js";

const ORIGIN = "https://api.example.com";

function param(name: string, overrides: Partial<ParameterBinding> = {}): ParameterBinding {
  return {
    name,
    argument: name,
    required: true,
    style: "simple",
    explode: false,
    allowReserved: false,
    shape: "primitive",
    ...overrides,
  };
}

function operation(overrides: Partial<Operation> = {}): Operation {
  return {
    method: "GET",
    serverUrl: `${ORIGIN}/v1`,
    path: "/files/{name}",
    parameters: { path: [param("name")], query: [], header: [], cookie: [] },
    accept: [],
    security: [],
    ...overrides,
  };
}

function refusal(build: () => unknown): { pointer: string; message: string } {
  try {
    build();
  } catch (error) {
    if (error instanceof ArgumentError) return { pointer: error.pointer, message: error.message };
    throw error;
  }
  throw new Error("expected an ArgumentError");
}

describe("a whole request", () => {
  it("puts every location in its place", () => {
    const op = operation({
      path: "/users/{id}/orders",
      parameters: {
        path: [param("id")],
        query: [
          param("status", { style: "form", explode: true }),
          param("filter", { style: "deepObject", explode: true, shape: "object" }),
          param("unset", { style: "form", required: false }),
        ],
        header: [param("X-Request-Id")],
        cookie: [param("session", { style: "form", explode: true }), param("ids", { style: "form", explode: false })],
      },
      accept: ["application/json", "application/problem+json"],
      headers: { "X-Api-Version": "2", "X-Key": "${WIDGETS_KEY}" },
    });
    const args = {
      id: 5,
      status: ["open", "paid"],
      filter: { role: "admin" },
      "X-Request-Id": "r-1",
      session: "s 1",
      ids: [3, 4, 5],
    };
    expect(buildRequest({ operation: op, args })).toEqual({
      method: "GET",
      origin: ORIGIN,
      path: "/v1/users/5/orders?status=open&status=paid&filter%5Brole%5D=admin",
      headers: {
        accept: "application/json, application/problem+json",
        "x-request-id": "r-1",
        "x-api-version": "2",
        "x-key": "${WIDGETS_KEY}",
        cookie: "session=s%201; ids=3,4,5",
      },
    });
  });

  it.each<[string, Partial<ParameterBinding>, unknown, string]>([
    ["simple", {}, [3, 4, 5], "/v1/users/3,4,5"],
    ["simple explode", { explode: true }, { role: "admin", firstName: "Alex" }, "/v1/users/role=admin,firstName=Alex"],
    ["label", { style: "label" }, 5, "/v1/users/.5"],
    ["label explode", { style: "label", explode: true }, [3, 4, 5], "/v1/users/.3.4.5"],
    ["matrix", { style: "matrix" }, { role: "admin", firstName: "Alex" }, "/v1/users/;id=role,admin,firstName,Alex"],
    ["matrix explode", { style: "matrix", explode: true }, [3, 4, 5], "/v1/users/;id=3;id=4;id=5"],
  ])("fills a path placeholder in %s style", (_, overrides, id, path) => {
    const op = operation({
      path: "/users/{id}",
      parameters: { path: [param("id", overrides)], query: [], header: [], cookie: [] },
    });
    expect(buildRequest({ operation: op, args: { id } }).path).toBe(path);
  });

  it("sends the body with its content type", () => {
    const op = operation({
      method: "POST",
      path: "/files",
      parameters: { path: [], query: [], header: [], cookie: [] },
      body: { kind: "json", mediaType: "application/json", required: true, argument: "body" },
    });
    const request = buildRequest({ operation: op, args: { body: { a: 1 } } });
    expect(request.headers).toEqual({ "content-type": "application/json" });
    expect(Buffer.from(request.body!).toString()).toBe('{"a":1}');
    expect(buildRequest({ operation: op, args: {} })).toEqual({
      method: "POST",
      origin: ORIGIN,
      path: "/v1/files",
      headers: {},
    });
  });

  it("passes a multipart boundary through", () => {
    const op = operation({
      method: "POST",
      path: "/f",
      parameters: { path: [], query: [], header: [], cookie: [] },
      body: { kind: "multipart", mediaType: "multipart/form-data", required: true, argument: "body" },
    });
    const request = buildRequest({ operation: op, args: { body: { a: "x" } }, boundary: "B" });
    expect(request.headers["content-type"]).toBe("multipart/form-data; boundary=B");
    expect(Buffer.from(request.body!).toString()).toBe(
      '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--B--\r\n',
    );
  });

  it("lets a static header win over an argument of the same name", () => {
    const op = operation({
      parameters: { path: [param("name")], query: [], header: [param("X-Api-Version")], cookie: [] },
      headers: { "X-Api-Version": "2" },
    });
    expect(buildRequest({ operation: op, args: { name: "a", "X-Api-Version": "9" } }).headers).toEqual({
      "x-api-version": "2",
    });
  });

  it("reads only own arguments: a parameter named constructor is left out when not given", () => {
    const op = operation({
      parameters: {
        path: [param("name")],
        query: [param("constructor", { style: "form" }), param("__proto__", { style: "form" })],
        header: [],
        cookie: [],
      },
    });
    expect(buildRequest({ operation: op, args: { name: "a" } }).path).toBe("/v1/files/a");
  });

  it("encodes what the template itself holds that a path may not", () => {
    expect(buildRequest({ operation: operation({ path: "/a b/%zz/%41/{name}" }), args: { name: "x" } }).path).toBe(
      "/v1/a%20b/%25zz/%41/x",
    );
  });
});

describe("the base URL", () => {
  // `--base-url` reaches the runtime as the catalog's server URL (the loader writes it there).
  it.each([
    [`${ORIGIN}/v1`, ORIGIN, "/v1/files/a"],
    [`${ORIGIN}/v1/`, ORIGIN, "/v1/files/a"],
    [ORIGIN, ORIGIN, "/files/a"],
    ["http://127.0.0.1:8080/api/", "http://127.0.0.1:8080", "/api/files/a"],
    ["https://other.example", "https://other.example", "/files/a"],
    [`${ORIGIN}/v1?api-version=2`, ORIGIN, "/v1/files/a?api-version=2"],
  ])("%s", (serverUrl, origin, path) => {
    const request = buildRequest({ operation: operation({ serverUrl }), args: { name: "a" } });
    expect([request.origin, request.path]).toEqual([origin, path]);
  });

  it.each([[""], ["/v1"], ["ftp://files.example/"]])("refuses %j with advice to pass --base-url", (serverUrl) => {
    const build = () => buildRequest({ operation: operation({ serverUrl }), args: { name: "a" } });
    expect(build).toThrow(OpenApiMcpError);
    expect(build).toThrow(/--base-url/);
    expect(build).not.toThrow(ArgumentError);
    try {
      build();
    } catch (error) {
      expect((error as OpenApiMcpError).code).toBe("E_NO_BASE_URL");
    }
  });
});

describe("no argument changes the host or the path's shape", () => {
  it.each([
    ["a/b", "/v1/files/a%2Fb"],
    ["../admin", "/v1/files/..%2Fadmin"],
    ["..%2Fadmin", "/v1/files/..%252Fadmin"],
    ["%2e%2e", "/v1/files/%252e%252e"],
    ["?admin=true#x", "/v1/files/%3Fadmin%3Dtrue%23x"],
    ["https://evil.example/x", "/v1/files/https%3A%2F%2Fevil.example%2Fx"],
    ["//evil.example", "/v1/files/%2F%2Fevil.example"],
    ["\\\\evil.example", "/v1/files/%5C%5Cevil.example"],
    ["@evil.example:443", "/v1/files/%40evil.example%3A443"],
    ["a b\r\nHost: evil", "/v1/files/a%20b%0D%0AHost%3A%20evil"],
    ["...", "/v1/files/..."],
  ])("path value %j", (name, path) => {
    const request = buildRequest({ operation: operation(), args: { name } });
    expect(request.path).toBe(path);
    expect(request.origin).toBe(ORIGIN);
    const parsed = new URL(request.origin + request.path);
    expect([parsed.origin, parsed.pathname.split("/").length, parsed.search, parsed.hash]).toEqual([ORIGIN, 4, "", ""]);
  });

  it.each([
    ["https://evil.example/x", "q=https%3A%2F%2Fevil.example%2Fx"],
    ["x&admin=true", "q=x%26admin%3Dtrue"],
    ["x#frag", "q=x%23frag"],
  ])("query value %j stays one value", (q, query) => {
    const op = operation({
      parameters: {
        path: [param("name")],
        query: [param("q", { style: "form", explode: true })],
        header: [],
        cookie: [],
      },
    });
    const request = buildRequest({ operation: op, args: { name: "a", q } });
    expect(request.path).toBe(`/v1/files/a?${query}`);
    expect(new URL(request.origin + request.path).searchParams.getAll("q")).toEqual([q]);
  });

  it.each<[string, Partial<ParameterBinding>, unknown]>([
    ["'.'", {}, "."],
    ["'..'", {}, ".."],
    ["'.' in label style, which makes '..'", { style: "label" }, "."],
    ["an empty value", {}, ""],
    ["a missing value", {}, undefined],
    ["an empty array", {}, []],
  ])("refuses %s as a whole segment", (_, overrides, name) => {
    const op = operation({ parameters: { path: [param("name", overrides)], query: [], header: [], cookie: [] } });
    expect(refusal(() => buildRequest({ operation: op, args: { name } })).pointer).toBe("/name");
  });

  it("refuses a segment that two values make '..'", () => {
    const op = operation({
      path: "/files/{a}{b}",
      parameters: { path: [param("a"), param("b")], query: [], header: [], cookie: [] },
    });
    expect(refusal(() => buildRequest({ operation: op, args: { a: ".", b: "." } })).pointer).toBe("/a");
    expect(buildRequest({ operation: op, args: { a: ".", b: "x" } }).path).toBe("/v1/files/.x");
  });
});

describe("no argument injects a header line", () => {
  const op = operation({
    parameters: {
      path: [param("name")],
      query: [],
      header: [param("X-Trace", { argument: "trace" })],
      cookie: [param("session", { style: "form" })],
    },
  });
  it.each<[string, Record<string, unknown>, string]>([
    ["CRLF in a header value", { trace: "a\r\nX-Evil: 1" }, "/trace"],
    ["LF in a header value", { trace: "a\nb" }, "/trace"],
    ["NUL in a header value", { trace: "a\0b" }, "/trace"],
    ["CR in an array item", { trace: ["a", "b\r"] }, "/trace"],
    ["LF in an object key", { trace: { "a\nb": "c" } }, "/trace"],
    ["CRLF in a cookie value", { session: "s\r\nSet-Cookie: x=1" }, "/session"],
    ["a control character in a header value", { trace: "bell \u0007" }, "/trace"],
    ["non-ASCII text in a header value", { trace: "tick ✓" }, "/trace"],
  ])("refuses %s", (_, args, pointer) => {
    const refused = refusal(() => buildRequest({ operation: op, args: { name: "a", ...args } }));
    expect(refused.pointer).toBe(pointer);
    expect(refused.message).toMatch(
      pointer === "/session" ? /CR, LF or NUL/ : /no line breaks, control characters or non-ASCII text/,
    );
  });

  it("sends other header text as it is", () => {
    expect(buildRequest({ operation: op, args: { name: "a", trace: "a b;c=d", session: "x;y" } }).headers).toEqual({
      "x-trace": "a b;c=d",
      cookie: "session=x%3By",
    });
  });
});
