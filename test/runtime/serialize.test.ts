// Parameter serialization against the OpenAPI style examples, for every location, style and explode, plus
// percent-encoding, allowReserved, `content` parameters and the values RFC 6570 calls undefined.

import { describe, expect, it } from "vitest";
import type { ParameterLocation, ParameterStyle } from "../../src/catalog/types.js";
import {
  encodeReserved,
  percentEncode,
  type Serialization,
  serializeParameter,
} from "../../src/runtime/http/serialize.js";

function serialize({
  location,
  style,
  explode,
  value,
  name = "id",
  allowReserved = false,
  contentType,
}: {
  location: ParameterLocation;
  style: ParameterStyle;
  explode: boolean;
  value: unknown;
  name?: string;
  allowReserved?: boolean;
  contentType?: string;
}): string | undefined {
  const binding: Serialization = { name, style, explode, allowReserved, ...(contentType ? { contentType } : {}) };
  return serializeParameter({ binding, value, location });
}

const ID = 5;
const IDS = [3, 4, 5];
const USER = { role: "admin", firstName: "Alex" };

// The style examples (id=5, [3,4,5], {role: "admin", firstName: "Alex"}), one row per location, style and explode.
const STYLE_TABLE: Array<[ParameterLocation, ParameterStyle, boolean, string, string, string | undefined]> = [
  ["path", "simple", false, "5", "3,4,5", "role,admin,firstName,Alex"],
  ["path", "simple", true, "5", "3,4,5", "role=admin,firstName=Alex"],
  ["path", "label", false, ".5", ".3,4,5", ".role,admin,firstName,Alex"],
  ["path", "label", true, ".5", ".3.4.5", ".role=admin.firstName=Alex"],
  ["path", "matrix", false, ";id=5", ";id=3,4,5", ";id=role,admin,firstName,Alex"],
  ["path", "matrix", true, ";id=5", ";id=3;id=4;id=5", ";role=admin;firstName=Alex"],
  ["query", "form", true, "id=5", "id=3&id=4&id=5", "role=admin&firstName=Alex"],
  ["query", "form", false, "id=5", "id=3,4,5", "id=role,admin,firstName,Alex"],
  ["query", "spaceDelimited", false, "id=5", "id=3%204%205", "id=role%20admin%20firstName%20Alex"],
  ["query", "pipeDelimited", false, "id=5", "id=3%7C4%7C5", "id=role%7Cadmin%7CfirstName%7CAlex"],
  ["query", "tabDelimited", false, "id=5", "id=3%094%095", "id=role%09admin%09firstName%09Alex"],
  // Not defined by the spec: exploded delimited styles repeat the name, as form does.
  ["query", "spaceDelimited", true, "id=5", "id=3&id=4&id=5", "role=admin&firstName=Alex"],
  ["query", "deepObject", true, "id=5", "id=3&id=4&id=5", "id%5Brole%5D=admin&id%5BfirstName%5D=Alex"],
  ["header", "simple", false, "5", "3,4,5", "role,admin,firstName,Alex"],
  ["header", "simple", true, "5", "3,4,5", "role=admin,firstName=Alex"],
  ["cookie", "form", false, "id=5", "id=3,4,5", "id=role,admin,firstName,Alex"],
  // Cookie pairs are separated by "; ", never "&" (OpenAPI 3.1.1 Appendix D).
  ["cookie", "form", true, "id=5", "id=3; id=4; id=5", "role=admin; firstName=Alex"],
];

describe("the style examples", () => {
  it.each(STYLE_TABLE)("%s %s explode=%s", (location, style, explode, primitive, array, object) => {
    expect(serialize({ location, style, explode, value: ID })).toBe(primitive);
    expect(serialize({ location, style, explode, value: IDS })).toBe(array);
    expect(serialize({ location, style, explode, value: USER })).toBe(object);
  });
});

// OpenAPI 3.1.1 §4.8.12.6: color = "blue" | ["blue","black","brown"] | {R: 100, G: 200, B: 150}; "" for *empty*.
const COLOR_TABLE: Array<[ParameterLocation, ParameterStyle, boolean, string, string, string, string]> = [
  ["path", "matrix", false, ";color", ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"],
  ["path", "matrix", true, ";color", ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"],
  ["path", "label", false, ".", ".blue", ".blue,black,brown", ".R,100,G,200,B,150"],
  ["path", "label", true, ".", ".blue", ".blue.black.brown", ".R=100.G=200.B=150"],
  ["path", "simple", false, "", "blue", "blue,black,brown", "R,100,G,200,B,150"],
  ["path", "simple", true, "", "blue", "blue,black,brown", "R=100,G=200,B=150"],
  ["query", "form", false, "color=", "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"],
  ["query", "form", true, "color=", "color=blue", "color=blue&color=black&color=brown", "R=100&G=200&B=150"],
];

describe("the OpenAPI 3.1.1 style examples table (color)", () => {
  it.each(COLOR_TABLE)("%s %s explode=%s", (location, style, explode, empty, string, array, object) => {
    const at = (value: unknown) => serialize({ location, style, explode, value, name: "color" });
    expect([at(""), at("blue"), at(["blue", "black", "brown"]), at({ R: 100, G: 200, B: 150 })]).toEqual([
      empty,
      string,
      array,
      object,
    ]);
  });

  it.each([
    ["spaceDelimited", "color=blue%20black%20brown", "color=R%20100%20G%20200%20B%20150"],
    ["pipeDelimited", "color=blue%7Cblack%7Cbrown", "color=R%7C100%7CG%7C200%7CB%7C150"],
  ] as const)("query %s explode=false", (style, array, object) => {
    expect(
      serialize({ location: "query", style, explode: false, value: ["blue", "black", "brown"], name: "color" }),
    ).toBe(array);
    expect(
      serialize({ location: "query", style, explode: false, value: { R: 100, G: 200, B: 150 }, name: "color" }),
    ).toBe(object);
  });
});

describe("values", () => {
  it.each<[string, unknown, string | undefined]>([
    ["true", true, "flag=true"],
    ["false", false, "flag=false"],
    ["a number as JSON", 1.5, "flag=1.5"],
    ["zero", 0, "flag=0"],
    ["null left out", null, undefined],
    ["undefined left out", undefined, undefined],
    ["an empty array left out", [], undefined],
    ["an empty object left out", {}, undefined],
    ["null items left out", [1, null, 2], "flag=1&flag=2"],
    ["null properties left out", { a: 1, b: null }, "a=1"],
    ["nested values as JSON", [{ a: 1 }], "flag=%7B%22a%22%3A1%7D"],
  ])("%s", (_, value, want) => {
    expect(serialize({ location: "query", style: "form", explode: true, value, name: "flag" })).toBe(want);
  });

  it("deepObject nests objects one level deeper each and repeats array members", () => {
    const value = { filter: { status: "open", owner: { name: "a b" } }, tags: ["x", "y"], gone: null };
    expect(serialize({ location: "query", style: "deepObject", explode: true, value, name: "q" })).toBe(
      "q%5Bfilter%5D%5Bstatus%5D=open&q%5Bfilter%5D%5Bowner%5D%5Bname%5D=a%20b&q%5Btags%5D=x&q%5Btags%5D=y",
    );
  });
});

describe("percent-encoding", () => {
  it.each([
    ["unreserved characters stay", "AZaz09-._~", "AZaz09-._~"],
    ["space as %20", "a b", "a%20b"],
    ["reserved characters", ":/?#[]@!$&'()*+,;=", "%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"],
    ["percent", "100%", "100%25"],
    ["UTF-8 bytes", "é€😀", "%C3%A9%E2%82%AC%F0%9F%98%80"],
    ["a lone surrogate as U+FFFD", "\uD800", "%EF%BF%BD"],
    ["control characters", "\r\n\0", "%0D%0A%00"],
  ])("%s", (_, given, want) => {
    expect(percentEncode(given)).toBe(want);
  });

  it("encodes delimiters inside values, so they cannot split the value", () => {
    expect(serialize({ location: "query", style: "form", explode: false, value: ["a,b", "c&d=e"] })).toBe(
      "id=a%2Cb,c%26d%3De",
    );
    expect(serialize({ location: "path", style: "label", explode: true, value: ["a.b", "c/d"] })).toBe(".a.b.c%2Fd");
    expect(serialize({ location: "cookie", style: "form", explode: false, value: "a; b=c" })).toBe("id=a%3B%20b%3Dc");
  });

  it("encodes names and object keys", () => {
    expect(serialize({ location: "query", style: "form", explode: true, value: "v", name: "a b" })).toBe("a%20b=v");
    expect(serialize({ location: "query", style: "form", explode: true, value: { "k&": "v" } })).toBe("k%26=v");
  });

  it("leaves header values as they are: headers are never percent-encoded", () => {
    expect(serialize({ location: "header", style: "simple", explode: false, value: "a b/é" })).toBe("a b/é");
  });

  it("allowReserved keeps reserved characters and %XX triples but not those that would break the query", () => {
    expect(encodeReserved("a/b?c:d@e!$'()*,;")).toBe("a/b?c:d@e!$'()*,;");
    expect(encodeReserved("x%2By %zz")).toBe("x%2By%20%25zz");
    expect(encodeReserved("#[]&=+")).toBe("%23%5B%5D%26%3D%2B");
    expect(
      serialize({
        location: "query",
        style: "form",
        explode: true,
        value: "https://x.example/a?b",
        allowReserved: true,
      }),
    ).toBe("id=https://x.example/a?b");
    expect(serialize({ location: "query", style: "form", explode: true, value: "https://x.example/a?b" })).toBe(
      "id=https%3A%2F%2Fx.example%2Fa%3Fb",
    );
  });
});

describe("parameters with content", () => {
  const coordinates = { lat: 1.5, long: -2 };
  it.each<[ParameterLocation, string]>([
    ["query", "coordinates=%7B%22lat%22%3A1.5%2C%22long%22%3A-2%7D"],
    ["path", "%7B%22lat%22%3A1.5%2C%22long%22%3A-2%7D"],
    ["header", '{"lat":1.5,"long":-2}'],
    ["cookie", "coordinates=%7B%22lat%22%3A1.5%2C%22long%22%3A-2%7D"],
  ])("application/json in %s", (location, want) => {
    const style = location === "query" || location === "cookie" ? "form" : "simple";
    expect(
      serialize({
        location,
        style,
        explode: true,
        value: coordinates,
        name: "coordinates",
        contentType: "application/json",
      }),
    ).toBe(want);
  });

  it("serializes a JSON string with its quotes and text/plain as the text itself", () => {
    expect(
      serialize({ location: "query", style: "form", explode: true, value: "a", contentType: "application/json" }),
    ).toBe("id=%22a%22");
    expect(
      serialize({ location: "query", style: "form", explode: true, value: "a b", contentType: "text/plain" }),
    ).toBe("id=a%20b");
  });
});
