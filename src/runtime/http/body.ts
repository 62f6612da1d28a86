// Request bodies from tool arguments, by the body kind the catalog resolved: JSON, form-urlencoded (with
// per-property encodings), multipart/form-data (files as base64 with a filename), text and binary.

import { randomBytes } from "node:crypto";
import { isJsonMediaType, parseMediaType } from "../../catalog/media-type.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { PropertyEncoding, RequestBodyBinding } from "../../catalog/types.js";
import { contentText, scalarText, serializeParameter } from "./serialize.js";
import { ArgumentError } from "../types.js";

export interface BuiltBody {
  bytes: Uint8Array;
  /** The Content-Type header value, with the boundary for multipart bodies. */
  contentType: string;
}

const UTF8 = new TextEncoder();

/**
 * The body of one call, or undefined when there is none (its argument not given). With `fields`, the body is an
 * object of the fields given. `boundary` is for tests; multipart bodies otherwise get a fresh random one.
 */
export function buildBody({
  binding,
  args,
  boundary,
}: {
  binding: RequestBodyBinding;
  args: Record<string, unknown>;
  boundary?: string;
}): BuiltBody | undefined {
  let value: unknown;
  let pointer = "";
  if (binding.fields) {
    const fields = binding.fields.filter((field) => Object.hasOwn(args, field) && args[field] !== undefined);
    const names = binding.fieldNames;
    value = Object.fromEntries(
      fields.map((field) => [names && Object.hasOwn(names, field) ? names[field]! : field, args[field]]),
    );
  } else if (binding.argument !== undefined && Object.hasOwn(args, binding.argument)) {
    value = args[binding.argument];
    pointer = joinPointer("", binding.argument);
  }
  if (value === undefined) return undefined;
  const mediaType = binding.mediaType;
  switch (binding.kind) {
    case "json":
      return { bytes: UTF8.encode(JSON.stringify(value)), contentType: mediaType };
    case "text": {
      // A text body without a stated charset would leave the server guessing; ours is always UTF-8.
      const charset = /;\s*charset=/i.test(mediaType) ? "" : "; charset=utf-8";
      return { bytes: UTF8.encode(scalarText(value)), contentType: `${mediaType}${charset}` };
    }
    case "binary": {
      if (typeof value !== "string") throw new ArgumentError({ message: "the body must be a base64 string", pointer });
      return {
        bytes: decodeBase64({ text: value, pointer }),
        contentType: concreteType(mediaType) ?? "application/octet-stream",
      };
    }
    case "form":
      return {
        bytes: UTF8.encode(formBody({ value: objectBody({ value, pointer }), encoding: binding.encoding })),
        contentType: mediaType,
      };
    case "multipart": {
      const chosen = boundary ?? `openapi-mcp-${randomBytes(16).toString("hex")}`;
      const essence = mediaType.split(";", 1)[0]!.trim();
      const bytes = multipartBody({
        value: objectBody({ value, pointer }),
        encoding: binding.encoding,
        boundary: chosen,
        pointer,
      });
      return { bytes, contentType: `${essence}; boundary=${chosen}` };
    }
  }
}

function objectBody({ value, pointer }: { value: unknown; pointer: string }): Record<string, unknown> {
  if (!isObject(value)) throw new ArgumentError({ message: "the body must be an object of its fields", pointer });
  return value;
}

/** Strict base64 (standard or URL-safe alphabet, line breaks allowed): Buffer alone would skip bad characters. */
export function decodeBase64({ text, pointer }: { text: string; pointer: string }): Uint8Array {
  const compact = text.replace(/\s+/g, "");
  const wellFormed = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/.test(compact);
  const padded = !compact.includes("=") || compact.length % 4 === 0;
  if (!wellFormed || !padded || compact.length % 4 === 1) {
    throw new ArgumentError({
      message: "not valid base64: use the characters A-Z a-z 0-9 + / (or - _) with = padding",
      pointer,
    });
  }
  return view(Buffer.from(compact, "base64"));
}

/** The first media type of a list that names one exact type; wildcards and lists cannot label content. */
function concreteType(list: string | undefined): string | undefined {
  for (const candidate of list?.split(",") ?? []) {
    const media = parseMediaType(candidate);
    if (media && media.type !== "*" && media.subtype !== "*") return candidate.trim();
  }
  return undefined;
}

/** application/x-www-form-urlencoded: each property by the form rules of its encoding (default form, explode). */
function formBody({
  value,
  encoding,
}: {
  value: Record<string, unknown>;
  encoding?: Record<string, PropertyEncoding> | undefined;
}): string {
  const pairs: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    const stated = encoding?.[name];
    // Content-based serialization only when the encoding names a type and no style field (OpenAPI Appendix E).
    const byContent =
      stated?.contentType !== undefined &&
      stated.style === undefined &&
      stated.explode === undefined &&
      stated.allowReserved === undefined;
    const style = stated?.style ?? "form";
    const serialized = serializeParameter({
      binding: {
        name,
        style,
        explode: stated?.explode ?? style === "form",
        allowReserved: stated?.allowReserved ?? false,
        ...(byContent ? { contentType: stated.contentType } : {}),
      },
      value: item,
      location: "query",
    });
    if (serialized !== undefined) pairs.push(serialized);
  }
  return pairs.join("&");
}

/** multipart/form-data (RFC 7578): one part per property; an array of files is one part per file. */
function multipartBody({
  value,
  encoding,
  boundary,
  pointer,
}: {
  value: Record<string, unknown>;
  encoding?: Record<string, PropertyEncoding> | undefined;
  boundary: string;
  pointer: string;
}): Uint8Array {
  const chunks: Uint8Array[] = [];
  const part = ({ headers, content }: { headers: string[]; content: Uint8Array }) => {
    chunks.push(
      UTF8.encode(`--${boundary}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n`),
      content,
      UTF8.encode("\r\n"),
    );
  };
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue;
    const stated = encoding?.[name];
    const at = joinPointer(pointer, name);
    if (stated?.file) {
      const files = Array.isArray(item) ? item : [item];
      files.forEach((file, i) => {
        const { filename, contentType, data } = fileOf({
          value: file,
          pointer: Array.isArray(item) ? joinPointer(at, i) : at,
        });
        const type = contentType ?? concreteType(stated.contentType) ?? "application/octet-stream";
        part({ headers: [disposition({ name, filename }), `Content-Type: ${type}`], content: data });
      });
      continue;
    }
    const structured = typeof item === "object";
    const type = concreteType(stated?.contentType) ?? (structured ? "application/json" : undefined);
    const text =
      type !== undefined && isJsonMediaType(type) ? contentText({ value: item, contentType: type }) : scalarText(item);
    // Plain text is multipart's default type (RFC 7578 §4.4), so, as browsers do, it is not labelled.
    part({ headers: [disposition({ name }), ...(type ? [`Content-Type: ${type}`] : [])], content: UTF8.encode(text) });
  }
  chunks.push(UTF8.encode(`--${boundary}--\r\n`));
  return view(Buffer.concat(chunks));
}

function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

/** A plain Uint8Array copy: a small Buffer is a window on a shared pool, which `.buffer` would expose whole. */
function view(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer);
}

/** Names in a part header: quotes and line breaks percent-encoded, as the HTML form encoder does. */
function disposition({ name, filename }: { name: string; filename?: string }): string {
  const quote = (text: string) => text.replaceAll('"', "%22").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
  return `Content-Disposition: form-data; name="${quote(name)}"${filename === undefined ? "" : `; filename="${quote(filename)}"`}`;
}

function fileOf({ value, pointer }: { value: unknown; pointer: string }): {
  filename: string;
  contentType?: string;
  data: Uint8Array;
} {
  if (!isObject(value) || typeof value.filename !== "string" || typeof value.data !== "string") {
    throw new ArgumentError({ message: "a file must be { filename, contentType?, data } with base64 data", pointer });
  }
  const contentType = value.contentType;
  // The model names the part's type: it goes into a part header, so it must be a media type and nothing more.
  if (
    contentType !== undefined &&
    (typeof contentType !== "string" || !parseMediaType(contentType) || hasControlCharacter(contentType))
  ) {
    throw new ArgumentError({
      message: "contentType must be a media type such as image/png",
      pointer: joinPointer(pointer, "contentType"),
    });
  }
  const data = decodeBase64({ text: value.data, pointer: joinPointer(pointer, "data") });
  return { filename: value.filename, data, ...(typeof contentType === "string" ? { contentType } : {}) };
}
