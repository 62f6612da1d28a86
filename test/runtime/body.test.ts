// Request bodies of every kind, byte for byte: JSON, form-urlencoded with encodings, multipart with files,
// text and binary; a body built from several arguments (`fields`); refusals of malformed files and base64.

import { describe, expect, it } from "vitest";
import type { PropertyEncoding, RequestBodyBinding } from "../../src/catalog/types.js";
import { type BuiltBody, buildBody } from "../../src/runtime/http/body.js";
import { ArgumentError } from "../../src/runtime/types.js";

function body({
  kind,
  mediaType,
  value,
  encoding,
  boundary = "B",
}: {
  kind: RequestBodyBinding["kind"];
  mediaType: string;
  value: unknown;
  encoding?: Record<string, PropertyEncoding> | undefined;
  boundary?: string;
}): BuiltBody | undefined {
  const binding: RequestBodyBinding = {
    kind,
    mediaType,
    required: true,
    argument: "body",
    ...(encoding ? { encoding } : {}),
  };
  return buildBody({ binding, args: { body: value }, boundary });
}

/** The bytes as a string of one character per byte, so binary content compares exactly. */
const bytes = (built: BuiltBody | undefined) => Buffer.from(built!.bytes).toString("latin1");
const utf8 = (built: BuiltBody | undefined) => Buffer.from(built!.bytes).toString("utf8");

function refusal(build: () => unknown): { pointer: string; message: string } {
  try {
    build();
  } catch (error) {
    if (error instanceof ArgumentError) return { pointer: error.pointer, message: error.message };
    throw error;
  }
  throw new Error("expected an ArgumentError");
}

describe("json", () => {
  it.each<[string, string, unknown, string]>([
    ["an object", "application/json", { a: 1, b: "é", c: [true, null] }, '{"a":1,"b":"é","c":[true,null]}'],
    ["a +json type as stated", "application/merge-patch+json", { a: null }, '{"a":null}'],
    ["a string", "application/json", "x", '"x"'],
    ["null", "application/json", null, "null"],
  ])("%s", (_, mediaType, value, want) => {
    const built = body({ kind: "json", mediaType, value });
    expect(utf8(built)).toBe(want);
    expect(built!.contentType).toBe(mediaType);
    expect(Buffer.isBuffer(built!.bytes)).toBe(false);
  });

  it("has no body when its argument is not given", () => {
    const binding: RequestBodyBinding = {
      kind: "json",
      mediaType: "application/json",
      required: false,
      argument: "body",
    };
    expect(buildBody({ binding, args: {} })).toBeUndefined();
  });

  it("builds an object from the fields given, and only those", () => {
    const binding: RequestBodyBinding = {
      kind: "json",
      mediaType: "application/json",
      required: true,
      fields: ["name", "size", "color"],
    };
    expect(utf8(buildBody({ binding, args: { name: "w", color: "red", id: 7, size: undefined } }))).toBe(
      '{"name":"w","color":"red"}',
    );
    expect(utf8(buildBody({ binding, args: { id: 7 } }))).toBe("{}");
  });
});

describe("text and binary", () => {
  it.each([
    ["text/plain", "héllo", "text/plain; charset=utf-8"],
    ["text/plain; charset=utf-8", "a", "text/plain; charset=utf-8"],
    ["application/xml", "<a/>", "application/xml; charset=utf-8"],
  ])("text %s", (mediaType, value, contentType) => {
    const built = body({ kind: "text", mediaType, value });
    expect(utf8(built)).toBe(value);
    expect(built!.contentType).toBe(contentType);
  });

  it.each([
    ["standard base64", "image/png", "AAEC/w==", "\x00\x01\x02\xff", "image/png"],
    [
      "URL-safe base64 without padding",
      "application/octet-stream",
      "AAEC_w",
      "\x00\x01\x02\xff",
      "application/octet-stream",
    ],
    ["line breaks ignored", "application/pdf", "aGVs\r\nbG8=", "hello", "application/pdf"],
    ["unpadded", "application/pdf", "aGk", "hi", "application/pdf"],
    ["a wildcard type sent as octet-stream", "*/*", "aGk=", "hi", "application/octet-stream"],
    ["empty", "application/octet-stream", "", "", "application/octet-stream"],
  ])("binary: %s", (_, mediaType, value, want, contentType) => {
    const built = body({ kind: "binary", mediaType, value });
    expect(bytes(built)).toBe(want);
    expect(built!.contentType).toBe(contentType);
  });

  it.each([["not base64!"], ["abcde"], ["ab=c"], ["a"], ["aGk=="], ["aGk-/w=="]])(
    "refuses invalid base64 %j",
    (value) => {
      expect(refusal(() => body({ kind: "binary", mediaType: "image/png", value })).pointer).toBe("/body");
    },
  );
});

describe("application/x-www-form-urlencoded", () => {
  const value = { name: "a b&c", tags: ["x", "y"], meta: { k: "v" }, n: 1, t: true, list: [{ a: 1 }], gone: null };
  const form = (encoding?: Record<string, PropertyEncoding>) =>
    body({ kind: "form", mediaType: "application/x-www-form-urlencoded", value, encoding });

  it.each<[string, Record<string, PropertyEncoding> | undefined, string]>([
    [
      "form, explode by default; nested objects as JSON",
      undefined,
      "name=a%20b%26c&tags=x&tags=y&k=v&n=1&t=true&list=%7B%22a%22%3A1%7D",
    ],
    [
      "explode false",
      { tags: { style: "form", explode: false }, meta: { style: "form", explode: false } },
      "name=a%20b%26c&tags=x,y&meta=k,v&n=1&t=true&list=%7B%22a%22%3A1%7D",
    ],
    [
      "pipeDelimited",
      { tags: { style: "pipeDelimited", explode: false } },
      "name=a%20b%26c&tags=x%7Cy&k=v&n=1&t=true&list=%7B%22a%22%3A1%7D",
    ],
    [
      "deepObject",
      { meta: { style: "deepObject", explode: true } },
      "name=a%20b%26c&tags=x&tags=y&meta%5Bk%5D=v&n=1&t=true&list=%7B%22a%22%3A1%7D",
    ],
    [
      "a content type alone: the value as JSON",
      { meta: { contentType: "application/json" } },
      "name=a%20b%26c&tags=x&tags=y&meta=%7B%22k%22%3A%22v%22%7D&n=1&t=true&list=%7B%22a%22%3A1%7D",
    ],
    [
      "allowReserved",
      { name: { allowReserved: true } },
      "name=a%20b%26c&tags=x&tags=y&k=v&n=1&t=true&list=%7B%22a%22%3A1%7D",
    ],
  ])("%s", (_, encoding, want) => {
    const built = form(encoding);
    expect(utf8(built)).toBe(want);
    expect(built!.contentType).toBe("application/x-www-form-urlencoded");
  });

  it("refuses a body that is not an object", () => {
    expect(
      refusal(() => body({ kind: "form", mediaType: "application/x-www-form-urlencoded", value: "a=b" })).pointer,
    ).toBe("/body");
  });
});

describe("multipart/form-data", () => {
  const file = (filename: string, data: string, contentType?: string) => ({
    filename,
    data,
    ...(contentType ? { contentType } : {}),
  });
  const multipart = (value: unknown, encoding?: Record<string, PropertyEncoding>, boundary = "B") =>
    body({ kind: "multipart", mediaType: "multipart/form-data", value, encoding, boundary });

  it("writes one part per property: text unlabelled, JSON labelled, files with filename and type", () => {
    const value = {
      name: "Rex",
      age: 3,
      meta: { a: 1 },
      photo: file("a.png", "AAEC/w==", "image/png"),
      docs: [file("1.txt", "aGk="), file("2.csv", "eA==")],
      gone: null,
    };
    const built = multipart(value, {
      photo: { file: true },
      docs: { file: true, contentType: "text/csv, text/plain" },
    });
    expect(built!.contentType).toBe("multipart/form-data; boundary=B");
    expect(bytes(built)).toBe(
      [
        "--B",
        'Content-Disposition: form-data; name="name"',
        "",
        "Rex",
        "--B",
        'Content-Disposition: form-data; name="age"',
        "",
        "3",
        "--B",
        'Content-Disposition: form-data; name="meta"',
        "Content-Type: application/json",
        "",
        '{"a":1}',
        "--B",
        'Content-Disposition: form-data; name="photo"; filename="a.png"',
        "Content-Type: image/png",
        "",
        "\x00\x01\x02\xff",
        "--B",
        'Content-Disposition: form-data; name="docs"; filename="1.txt"',
        "Content-Type: text/csv",
        "",
        "hi",
        "--B",
        'Content-Disposition: form-data; name="docs"; filename="2.csv"',
        "Content-Type: text/csv",
        "",
        "x",
        "--B--",
        "",
      ].join("\r\n"),
    );
  });

  it("labels a file without a type as application/octet-stream and a field with its stated type", () => {
    const built = multipart(
      { blob: file("b", "aGk="), note: "a,b" },
      { blob: { file: true }, note: { contentType: "text/csv" } },
    );
    expect(utf8(built)).toBe(
      '--B\r\nContent-Disposition: form-data; name="blob"; filename="b"\r\nContent-Type: application/octet-stream\r\n\r\nhi\r\n' +
        '--B\r\nContent-Disposition: form-data; name="note"\r\nContent-Type: text/csv\r\n\r\na,b\r\n--B--\r\n',
    );
  });

  it("escapes quotes and line breaks in names and filenames, so no part header can be injected", () => {
    const built = multipart({ photo: file('a"b\r\nContent-Type: text/html.png', "aGk=") }, { photo: { file: true } });
    expect(utf8(built)).toContain(
      'Content-Disposition: form-data; name="photo"; filename="a%22b%0D%0AContent-Type: text/html.png"\r\n',
    );
  });

  it("picks a fresh random boundary when none is given", () => {
    const binding: RequestBodyBinding = {
      kind: "multipart",
      mediaType: "multipart/form-data",
      required: true,
      argument: "body",
    };
    const second = buildBody({ binding, args: { body: { a: "x" } } });
    expect(second!.contentType).toMatch(/^multipart\/form-data; boundary=openapi-mcp-[0-9a-f]{32}$/);
    expect(second!.contentType).not.toBe(buildBody({ binding, args: { body: { a: "x" } } })!.contentType);
  });

  it.each<[string, unknown, string]>([
    ["a file that is not a file object", { photo: "aGk=" }, "/body/photo"],
    ["invalid base64 in a file", { photo: file("a", "%%%") }, "/body/photo/data"],
    [
      "invalid base64 in the second of several files",
      { docs: [file("a", "aGk="), file("b", "a@b")] },
      "/body/docs/1/data",
    ],
    [
      "a content type with a line break",
      { photo: file("a", "aGk=", "text/plain\r\nX-Evil: 1") },
      "/body/photo/contentType",
    ],
    ["a content type that is not a media type", { photo: file("a", "aGk=", "evil") }, "/body/photo/contentType"],
    ["a body that is not an object", ["x"], "/body"],
  ])("refuses %s", (_, value, pointer) => {
    expect(refusal(() => multipart(value, { photo: { file: true }, docs: { file: true } })).pointer).toBe(pointer);
  });
});
