// Parameter serialization as OpenAPI 3.1 states it (Style Values and the Style Examples table, after RFC 6570):
// a value becomes the exact text put on the wire, already percent-encoded for its location. Pure: no I/O.

import { isJsonMediaType } from "../../catalog/media-type.js";
import { isObject } from "../../catalog/pointer.js";
import type { ParameterBinding, ParameterLocation, ParameterStyle } from "../../catalog/types.js";

/** What serialization reads from a binding; form bodies build one from a property's encoding. */
export type Serialization = Pick<ParameterBinding, "name" | "style" | "explode" | "allowReserved" | "contentType">;

const UTF8 = new TextEncoder();
const HEX = "0123456789ABCDEF";
const UNRESERVED = /[A-Za-z0-9\-._~]/;
// allowReserved passes RFC 3986 reserved characters through, except those the query cannot hold (`#[]`) or that
// form-urlencoding gives a meaning (`&=+`): OpenAPI 3.1.1 Appendix C says these stay encoded.
const RESERVED_KEPT = /[:/?@!$'()*,;]/;
// The delimiters of the non-RFC 6570 query styles, percent-encoded as the Style Examples table shows them.
const DELIMITERS: Partial<Record<ParameterStyle, string>> = {
  spaceDelimited: "%20",
  pipeDelimited: "%7C",
  tabDelimited: "%09",
};

function encodeWith(text: string, keep: (char: string, at: number, bytes: Uint8Array) => number): string {
  // Lone surrogates become U+FFFD through TextEncoder, so no input can make encoding throw.
  const bytes = UTF8.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; ) {
    const byte = bytes[i]!;
    const kept = byte < 0x80 ? keep(String.fromCharCode(byte), i, bytes) : 0;
    if (kept > 0) {
      for (let k = 0; k < kept; k++) out += String.fromCharCode(bytes[i + k]!);
      i += kept;
    } else {
      out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
      i++;
    }
  }
  return out;
}

// Most values (ids, names, numbers) need no encoding at all: a quick check spares the byte-by-byte pass.
const NOTHING_TO_ENCODE = /^[A-Za-z0-9\-._~]*$/;

/** RFC 3986: unreserved characters stay, every other byte of the UTF-8 encoding becomes `%XX`. */
export function percentEncode(text: string): string {
  if (NOTHING_TO_ENCODE.test(text)) return text;
  return encodeWith(text, (char) => (UNRESERVED.test(char) ? 1 : 0));
}

/** RFC 6570 reserved expansion, minus the characters a query string cannot carry as data. */
export function encodeReserved(text: string): string {
  const isHex = (byte: number | undefined) => byte !== undefined && /[0-9A-Fa-f]/.test(String.fromCharCode(byte));
  return encodeWith(text, (char, at, bytes) => {
    if (UNRESERVED.test(char) || RESERVED_KEPT.test(char)) return 1;
    // Percent-encoded triples the caller already wrote pass unchanged.
    return char === "%" && isHex(bytes[at + 1]) && isHex(bytes[at + 2]) ? 3 : 0;
  });
}

/** A scalar as text: booleans as true/false, numbers as JSON numbers; nested structures as JSON. */
export function scalarText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The value serialized by its media type (a parameter or form field described by `content`). */
export function contentText({ value, contentType }: { value: unknown; contentType: string }): string {
  return isJsonMediaType(contentType) ? JSON.stringify(value) : scalarText(value);
}

/**
 * One parameter's serialization, or undefined when it is left out (null, undefined, an empty array or object:
 * RFC 6570's "undefined"). Path: the text for the placeholder; query: `a=1&b=2`; header: the value (headers are
 * never percent-encoded); cookie: `a=1; b=2`.
 */
export function serializeParameter({
  binding,
  value,
  location,
}: {
  binding: Serialization;
  value: unknown;
  location: ParameterLocation;
}): string | undefined {
  if (value === undefined || value === null) return undefined;
  const encode =
    location === "header"
      ? (text: string) => text
      : location === "query" && binding.allowReserved
        ? encodeReserved
        : percentEncode;
  const name = location === "header" ? binding.name : percentEncode(binding.name);
  const join = location === "cookie" ? "; " : "&";
  const named = location === "query" || location === "cookie";
  if (binding.contentType !== undefined) {
    const text = encode(contentText({ value, contentType: binding.contentType }));
    return named ? `${name}=${text}` : text;
  }
  // Headers have only `simple`, cookies only `form`: anything else stated for them is taken as the default.
  const style = location === "header" ? "simple" : location === "cookie" ? "form" : binding.style;
  if (style === "deepObject" && isObject(value))
    return deepPairs({ prefix: name, value, encode }).join(join) || undefined;
  const explode = binding.explode;
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== undefined && item !== null).map((item) => encode(scalarText(item)));
    if (items.length === 0) return undefined;
    switch (style) {
      case "simple":
        return items.join(",");
      case "label":
        return `.${items.join(explode ? "." : ",")}`;
      case "matrix":
        return explode ? items.map((item) => matrix(name, item)).join("") : `;${name}=${items.join(",")}`;
      default:
        if (explode) return items.map((item) => `${name}=${item}`).join(join);
        return `${name}=${items.join(DELIMITERS[style] ?? ",")}`;
    }
  }
  if (isObject(value)) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => [encode(k), encode(scalarText(v))] as const);
    if (entries.length === 0) return undefined;
    const flat = entries.flat();
    const assigned = entries.map(([k, v]) => `${k}=${v}`);
    switch (style) {
      case "simple":
        return explode ? assigned.join(",") : flat.join(",");
      case "label":
        return explode ? `.${assigned.join(".")}` : `.${flat.join(",")}`;
      case "matrix":
        return explode ? entries.map(([k, v]) => matrix(k, v)).join("") : `;${name}=${flat.join(",")}`;
      default:
        return explode ? assigned.join(join) : `${name}=${flat.join(DELIMITERS[style] ?? ",")}`;
    }
  }
  const text = encode(scalarText(value));
  if (style === "simple") return text;
  if (style === "label") return `.${text}`;
  if (style === "matrix") return matrix(name, text);
  return `${name}=${text}`;
}

/** RFC 6570 `;` expansion: an empty value leaves the name alone (`;color`). */
function matrix(name: string, text: string): string {
  return text === "" ? `;${name}` : `;${name}=${text}`;
}

/** deepObject: `name[key]=value`, nested objects one level deeper each, arrays as repeated pairs. */
function deepPairs({
  prefix,
  value,
  encode,
}: {
  prefix: string;
  value: Record<string, unknown>;
  encode: (text: string) => string;
}): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    // Brackets percent-encoded, as OpenAPI 3.1.1's table writes them: every server framework decodes that form,
    // while some (Tomcat, so Spring) refuse literal brackets in a query.
    const path = `${prefix}%5B${encode(key)}%5D`;
    if (isObject(item)) return deepPairs({ prefix: path, value: item, encode });
    const items = Array.isArray(item) ? item : [item];
    return items.filter((v) => v !== undefined && v !== null).map((v) => `${path}=${encode(scalarText(v))}`);
  });
}
